// Types the CloneSet controller's rule modules share (rules/cloneset.ts, cloneset-plan.ts), in a module of
// their own so that neither imports the other for them.
import type { LabelSelector } from '../selectors';

/** The pod update policy Kruise's CloneSet controller applies (updateStrategy.type, or OnDelete). */
export type UpdatePolicy = 'ReCreate' | 'InPlaceIfPossible' | 'InPlaceOnly' | 'OnDelete';

/** spec.updateStrategy.priorityStrategy (apis/apps/pub/update_priority.go). */
export interface UpdatePriorityStrategy {
  weightPriority?: Array<{ weight: number; matchSelector?: LabelSelector }>;
  orderPriority?: Array<{ orderedKey: string }>;
}
