// Progress display: an ora spinner on an interactive stderr, plain lines otherwise
// (CI logs get one line per change, never spinner frames or colour codes).
import type { Terminal } from '../cli/terminal';

export interface Progress {
  /** Replace the live line (TTY) or print it when it changed (non-TTY). */
  update(text: string): void;
  /** Print a permanent line (stops the spinner line first). */
  log(line: string): void;
  /** Stop the spinner; optional final line. */
  stop(finalLine?: string): void;
}

interface OraLike {
  start(): OraLike;
  stop(): OraLike;
  text: string;
}

export async function createProgress(term: Terminal): Promise<Progress> {
  // A pty that reports 0 columns (`script`, some CI runners) makes ora's line clearing loop forever.
  const columns = (term.stderr as { columns?: number }).columns;
  if (!term.decorate || columns === 0) {
    let last = '';
    return {
      update(text) {
        if (text !== last) {
          last = text;
          term.stderr.write(`${text}\n`);
        }
      },
      log(line) {
        term.stderr.write(`${line}\n`);
      },
      stop(finalLine) {
        if (finalLine) term.stderr.write(`${finalLine}\n`);
      },
    };
  }
  const { default: ora } = await import('ora');
  const spinner: OraLike = ora({ stream: term.stderr as NodeJS.WritableStream & { isTTY?: boolean }, discardStdin: false }) as unknown as OraLike;
  let running = false;
  return {
    update(text) {
      spinner.text = text;
      if (!running) {
        spinner.start();
        running = true;
      }
    },
    log(line) {
      const was = running;
      if (was) spinner.stop();
      term.stderr.write(`${line}\n`);
      if (was) spinner.start();
    },
    stop(finalLine) {
      if (running) spinner.stop();
      running = false;
      if (finalLine) term.stderr.write(`${finalLine}\n`);
    },
  };
}

/** How engines report while they run: the live status text, and permanent lines. */
export interface ProgressReporter {
  progress(text: string): void;
  log(line: string): void;
}

/**
 * Runs `work` with a progress display on stderr, stopped however `work` ends (a failure must not
 * leave a spinner running over the error line). With `liveTextOnlyOnTty`, status text is shown
 * only on an interactive terminal, for commands whose status changes too often for a CI log.
 */
export async function withProgress<T>(term: Terminal, work: (reporter: ProgressReporter) => Promise<T>, opts: { liveTextOnlyOnTty?: boolean } = {}): Promise<T> {
  const progress = await createProgress(term);
  try {
    return await work({
      progress: (text) => {
        if (!opts.liveTextOnlyOnTty || term.decorate) progress.update(text);
      },
      log: (line) => progress.log(line),
    });
  } finally {
    progress.stop();
  }
}
