// The template change of `rollout restart` (kubectl's restartedAt annotation), shared by the restart and its preview.
export const RESTARTED_AT_ANNOTATION = 'kubectl.kubernetes.io/restartedAt';

/** Merge patch adding the restartedAt annotation to the pod template (what kubectl sends). */
export function restartPatch(now: Date, templatePath: readonly string[] = ['spec', 'template']): Record<string, unknown> {
  let patch: Record<string, unknown> = { metadata: { annotations: { [RESTARTED_AT_ANNOTATION]: now.toISOString().replace(/\.\d{3}Z$/, 'Z') } } };
  for (const seg of [...templatePath].reverse()) patch = { [seg]: patch };
  return patch;
}
