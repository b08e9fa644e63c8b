// Flux health expressions (CEL) of a Kruise Rollout, v1alpha1 and v1beta1 (canary and blue-green):
// our gate's release verdict (rollout/gate.ts evaluateRolloutRelease, from the Rollout alone) with
// rollout/read.ts's paths, as lua/rollout.ts decides it for Argo CD. Flux has no Suspended: a
// Rollout waiting for a person (approval, spec.strategy.paused) is InProgress, as is a
// timed step pause; a cancelled release (Succeeded=False) is Failed; Complete is Current.
import { binds, conditionsOf, fluxExpressions, isNum, isStr, isTrue, num, str, tbl, tblField, whole, type FluxExpressions } from './prelude';

const ROLLOUT_STAGES: ReadonlyArray<readonly [string, string]> = [
  ['t', `{'s': ${tbl('spec')}, 'st': ${tbl('status')}, 'md': ${tbl('metadata')}}`],
  ['a', `{'strategy': ${tblField('t.s', 'strategy')}, 'beta': apiVersion == 'rollouts.kruise.io/v1beta1'}`],
  ['b', `{'blueGreen': a.beta && has(a.strategy.blueGreen) && type(a.strategy.blueGreen) == map}`],
  [
    'c',
    `{'strat': (b.blueGreen ? a.strategy.blueGreen : ${tblField('a.strategy', 'canary')}), 'sub': (b.blueGreen ? ${tblField('t.st', 'blueGreenStatus')} : ${tblField('t.st', 'canaryStatus')})}`,
  ],
  [
    'd',
    `{'steps': (has(c.strat.steps) && type(c.strat.steps) == list ? c.strat.steps : []), 'phase': ${str('t.st', 'phase')}, 'indexHas': ${isNum('c.sub', 'currentStepIndex')}, 'index': ${num('c.sub', 'currentStepIndex', '0.0')}, 'state': ${str('c.sub', 'currentStepState')}, 'progressing': ${conditionsOf('t.st', 'Progressing', false)}, 'succeeded': ${conditionsOf('t.st', 'Succeeded', false)}}`,
  ],
  [
    'e',
    `{'reason': (size(d.progressing) > 0 ? ${str('d.progressing[0]', 'reason')} : ''), 'cancelled': size(d.succeeded) > 0 && ${str('d.succeeded[0]', 'status')} == 'False', 'stepHas': d.indexHas && ${whole('d.index')} && d.index >= 1.0 && d.index <= double(size(d.steps)) && type(d.steps[int(d.index) - 1]) != null_type}`,
  ],
  ['f', `{'step': (e.stepHas ? ${tbl('d.steps[int(d.index) - 1]')} : {})}`],
  ['g', `{'pause': ${tblField('f.step', 'pause')}}`],
];

// The last canary step at 100% does not wait for approval: the release finishes. v1alpha1 reads a
// step's weight as the percentage when it has no replicas.
const FINAL_FULL = `(!b.blueGreen && d.index == double(size(d.steps)) && ((${isStr('f.step', 'replicas')} && f.step.replicas == '100%') || (!(has(f.step.replicas) && (type(f.step.replicas) == int || type(f.step.replicas) == double || type(f.step.replicas) == string)) && !a.beta && ${isNum('f.step', 'weight')} && double(f.step.weight) == 100.0)))`;

const GENERATION_UNOBSERVED = `(has(t.md.generation) && type(t.md.generation) != null_type && !(${isNum('t.md', 'generation')} && ${isNum('t.st', 'observedGeneration')} && double(t.st.observedGeneration) == double(t.md.generation)))`;

export const ROLLOUT_VERDICT_CEL = binds(
  ROLLOUT_STAGES,
  [
    `(d.phase == 'Initial' && ${str('t.st', 'message')} == 'Workload Not Found') ? 'Suspended'`,
    `d.phase == 'Terminating' ? 'Suspended'`,
    // Disabled drives no release: the workload carries its own health (rollout status judges it alone).
    `d.phase == 'Disabling' ? 'Progressing'`,
    `d.phase == 'Disabled' ? (${isTrue('t.s', 'disabled')} ? 'Healthy' : 'Progressing')`,
    `${isTrue('t.s', 'disabled')} ? 'Progressing'`,
    `${GENERATION_UNOBSERVED} ? 'Progressing'`,
    `e.cancelled ? 'Degraded'`,
    `(d.phase == 'Healthy' && d.state == 'Completed') ? 'Healthy'`,
    // Healthy drives no release, whatever step an abandoned release (disabled, then enabled again) left in the status.
    `(d.phase == 'Healthy' && (b.blueGreen ? (has(t.st.blueGreenStatus) && type(t.st.blueGreenStatus) == map) : (has(t.st.canaryStatus) && type(t.st.canaryStatus) == map))) ? 'Healthy'`,
    `e.reason == 'Cancelling' ? 'Progressing'`,
    `(${isTrue('a.strategy', 'paused')} || e.reason == 'Paused') ? 'Suspended'`,
    // A step pause with no duration waits for approval; with one it is timed (progressing).
    `(d.state == 'StepPaused' && e.stepHas && !${FINAL_FULL}) ? (${isNum('g.pause', 'duration')} ? 'Progressing' : 'Suspended')`,
    `'Progressing'`,
  ].join(' :\n'),
);

export const ROLLOUT_FLUX: FluxExpressions = fluxExpressions(ROLLOUT_VERDICT_CEL);
