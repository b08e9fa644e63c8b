// The part of kube's ValidatePodTemplateSpec (pkg/apis/core/validation) that users of the job kinds
// hit: containers present, container names (RFC 1123 labels, unique across containers and init
// containers), images present, a supported restartPolicy. Kruise's BroadcastJob and AdvancedCronJob
// webhooks and the API server's Job validation run it on their templates; the rest of pod validation
// (volumes, probes, resources...) is not imitated.
import type { FieldError } from './cloneset-webhook';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const LABEL_MESSAGE =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

/** `path` is where the template sits ("spec.template"). */
export function validatePodTemplateSpec(template: unknown, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const spec = isObj(template) && isObj(template.spec) ? template.spec : {};
  const specPath = `${path}.spec`;
  const seen = new Set<string>();
  const lists: Array<[string, unknown]> = [
    ['initContainers', spec.initContainers],
    ['containers', spec.containers],
  ];
  for (const [list, value] of lists) {
    const items = Array.isArray(value) ? value : [];
    if (list === 'containers' && items.length === 0) errors.push({ type: 'Required', field: `${specPath}.containers`, detail: '' });
    items.forEach((c, i) => {
      const at = `${specPath}.${list}[${i}]`;
      const name = isObj(c) && typeof c.name === 'string' ? c.name : '';
      if (name === '') errors.push({ type: 'Required', field: `${at}.name`, detail: '' });
      else if (name.length > 63 || !DNS1123_LABEL.test(name)) errors.push({ type: 'Invalid', field: `${at}.name`, value: name, detail: LABEL_MESSAGE });
      else if (seen.has(name)) errors.push({ type: 'Duplicate', field: `${at}.name`, value: name, detail: '' });
      seen.add(name);
      const image = isObj(c) && typeof c.image === 'string' ? c.image : '';
      if (image.trim() === '') errors.push({ type: 'Required', field: `${at}.image`, detail: '' });
    });
  }
  const restart = spec.restartPolicy;
  if (restart === undefined || restart === '') errors.push({ type: 'Required', field: `${specPath}.restartPolicy`, detail: '' });
  else if (restart !== 'Always' && restart !== 'OnFailure' && restart !== 'Never') {
    errors.push({ type: 'NotSupported', field: `${specPath}.restartPolicy`, value: restart, detail: 'supported values: "Always", "OnFailure", "Never"' });
  }
  return errors;
}
