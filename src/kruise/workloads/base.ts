// What every adapter shares: template, selector, containers, the revision label. Each kind's
// module spreads these and adds its own field paths and arithmetic.
import type { KubeObject } from '../types';
import type { WorkloadAdapter } from './types';
import { objAt, templateContainers } from './access';

export const CONTROLLER_REVISION_HASH = 'controller-revision-hash';
export const POD_TEMPLATE_HASH = 'pod-template-hash';

type Common = Pick<WorkloadAdapter, 'template' | 'selector' | 'templatePointer' | 'containers'>;

export const commonAccessors: Common = {
  template: (obj: KubeObject) => objAt(obj, 'spec', 'template'),
  selector: (obj: KubeObject) => objAt(obj, 'spec', 'selector') as ReturnType<WorkloadAdapter['selector']>,
  templatePointer: () => '/spec/template',
  containers: templateContainers,
};

/** Error for pause operations on kinds without a paused field. */
export function noPauseField(kind: string): Error {
  return new Error(`a ${kind} has no paused field`);
}
