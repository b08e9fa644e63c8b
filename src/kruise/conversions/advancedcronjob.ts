// AdvancedCronJob v1alpha1 ↔ v1beta1 (apis/apps/v1alpha1/advancedcronjob_conversion.go): the same shape,
// but v1beta1 can also template ImageListPullJobs, which v1alpha1 cannot hold: ConvertFrom refuses them.
import type { KubeObject } from '../types';
import { ConversionError, objOf, type KindConversion } from './fields';

export const advancedCronJobConversion: KindConversion = {
  toV1beta1: (obj) => obj,
  toV1alpha1(obj: KubeObject): KubeObject {
    const template = objOf(objOf(obj, 'spec'), 'template');
    if (template?.imageListPullJobTemplate !== undefined && template.imageListPullJobTemplate !== null) {
      throw new ConversionError('imageListPullJobTemplate is not supported in v1alpha1');
    }
    return obj;
  },
};
