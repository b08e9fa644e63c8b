// The output of `rollout verify`: one line per event as it happens (measurements as they are taken), or with
// -o json one JSON object per event (JSON Lines), each with `event` and the Rollout's namespace and name.
// Only renders: the command decides what happened.

export type VerifyEvent =
  | { event: 'wait'; message: string }
  | { event: 'step'; step: number; steps: number; revision: string; checks: readonly string[]; run: string }
  | { event: 'note'; step: number; check: string; message: string }
  | { event: 'measurement'; step: number; check: string; type: string; subject: string; index: number; count: number; outcome: string; values?: number[]; message: string }
  | { event: 'check'; step: number; check: string; type: string; phase: string; reason: string; subject: string; evidence?: string[] }
  | { event: 'verdict'; step: number; revision: string; verdict: string; run: string; recordedBy: 'this run' | 'another run'; summary: string }
  | { event: 'inconclusive'; step: number; revision: string; summary: string }
  | { event: 'approved'; step: number; revision: string; unchecked: boolean }
  | { event: 'approve-skipped'; step: number; message: string }
  | { event: 'rollback'; step: number; revision: string; action: string; message: string }
  | { event: 'done'; result: 'complete' | 'until' | 'failed' | 'cancelled' | 'inconclusive' | 'unreleased' | 'timeout'; message: string };

/** What sees every event besides the output (the CI report): text to print before and after its line. */
export interface VerifySink {
  record(e: VerifyEvent): { before: string; after: string };
}

export class VerifyPrinter {
  private lastWait = '';

  constructor(
    private readonly out: NodeJS.WritableStream,
    private readonly json: boolean,
    private readonly who: { namespace: string; name: string },
    private readonly sink?: VerifySink,
  ) {}

  emit(e: VerifyEvent): void {
    if (e.event === 'wait') {
      // One line per change, as `rollout status` does.
      if (e.message === this.lastWait) return;
      this.lastWait = e.message;
    }
    const around = this.sink?.record(e) ?? { before: '', after: '' };
    if (this.json) {
      // JSON Lines stay JSON: the CI's markers are for a human log only.
      this.out.write(`${JSON.stringify({ time: new Date().toISOString(), namespace: this.who.namespace, rollout: this.who.name, ...e })}\n`);
      return;
    }
    const line = this.human(e);
    this.out.write(`${around.before}${line ? `${line}\n` : ''}${around.after}`);
  }

  /** Text of the sink printed outside an event (the end of a run without a done event). */
  raw(text: string): void {
    if (!this.json && text) this.out.write(text);
  }

  private human(e: VerifyEvent): string {
    switch (e.event) {
      case 'wait':
        return e.message;
      case 'step':
        return `step ${e.step}/${e.steps} (revision ${e.revision}) waits for approval: checking ${e.checks.join(', ')} (run ${e.run})`;
      case 'note':
        return `  ${e.check}: ${e.message}`;
      case 'measurement':
        return `  ${e.check} #${e.index}/${e.count} ${e.outcome}: ${e.message}`;
      case 'check':
        return `  ${e.check}: ${e.phase}: ${e.reason}${e.evidence?.length ? `\n${e.evidence.map((l) => `    ${l}`).join('\n')}` : ''}`;
      case 'verdict':
        return `step ${e.step}: verdict ${e.verdict}${e.recordedBy === 'another run' ? ` (recorded by run ${e.run})` : ''}: ${e.summary}`;
      case 'inconclusive':
        return `step ${e.step}: inconclusive: ${e.summary}; left waiting for a person`;
      case 'approved':
        return `step ${e.step} approved${e.unchecked ? ' (no checks: --approve-unchecked)' : ''}`;
      case 'approve-skipped':
        return `step ${e.step}: ${e.message}`;
      case 'rollback':
        return `step ${e.step}: ${e.message}`;
      case 'done':
        return e.result === 'failed' || e.result === 'cancelled' || e.result === 'timeout' || e.result === 'inconclusive' || e.result === 'unreleased' ? '' : e.message;
    }
  }
}
