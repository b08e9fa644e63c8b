// The --preview paragraph of the help of set image|env|resources and rollout undo|restart (one text, one contract).
export const PREVIEW_HELP = `
Preview (--preview, reads only: GET/LIST, never a write; with -f FILE --local offline, one row per replica):
  Per pod, what Kruise does: update-in-place (images; containers restart in launch-priority order),
  restart-in-place (env reads a changed label/annotation), resize-in-place (cpu/memory, only with the
  InPlaceWorkloadVerticalScaling gate; resizePolicy RestartContainer restarts the container), recreate,
  kept (partition / node selector), unchanged, refused (InPlaceOnly: Kruise's webhook refuses, exit 1).
  Batches follow the workload's own rules (priority, scatter, partition, maxUnavailable, maxSurge).
  The gates come from --feature-gates, else from kruise-manager's Deployment (kruise-system/
  kruise-controller-manager) when it can be read; otherwise the gate is "unknown" and pods are shown
  recreated with "(resize-in-place if InPlaceWorkloadVerticalScaling is on)".
  -o json: {"kind":"Preview","items":[{kind, apiVersion, namespace, name, command, policy, replicas,
  partition, maxUnavailable, maxSurge, paused, featureGates, featureGatesFrom?, pods:[{name, uid, node, revision, action,
  images, resize, restartOrder, staysReady, reasons, ifGateOn, batch}], batches:[{index, pods, surge,
  budgetHeadroom?, budgetName?}], offline?, noChange?, warnings}]}. Exit 0, 1 when Kruise would
  refuse the change, 2 bad input.`;
