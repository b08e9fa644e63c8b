// What one answer says, as a measurement: a Prometheus instant query's answer (api/v1/query: a vector, a
// scalar, or an error) compared by the check's condition, every series of a vector included; an empty vector
// (or NaN, a rate over nothing) is what the check's onEmpty says, never a silent pass. Pure.
import { conditionHolds, type Condition } from './condition';
import type { EmptyResult } from './checks';
import type { MeasurementOutcome } from './measurements';

export interface Judged {
  outcome: MeasurementOutcome;
  values?: number[];
  message: string;
}

interface PromAnswer {
  status?: string;
  error?: string;
  errorType?: string;
  data?: { resultType?: string; result?: unknown };
}

function fmt(v: number): string {
  return Number.isNaN(v) ? 'NaN' : String(Number(v.toPrecision(6)));
}

function labelsText(metric: unknown): string {
  if (typeof metric !== 'object' || metric === null) return '';
  const entries = Object.entries(metric as Record<string, string>);
  return entries.length ? `{${entries.map(([k, v]) => `${k}="${v}"`).join(',')}}` : '';
}

/** Compares values by `condition`; empty (or all NaN): `onEmpty`. */
export function judgeValues(values: number[], condition: Condition, onEmpty: EmptyResult, described: string[] = values.map(fmt)): Judged {
  const real = values.filter((v) => !Number.isNaN(v));
  if (real.length === 0) {
    const what = values.length === 0 ? 'empty result' : 'no value (NaN)';
    return { outcome: onEmpty, values, message: `${what}: ${onEmpty} (onEmpty)` };
  }
  const bad = values.map((v, i) => ({ v, i })).filter(({ v }) => !conditionHolds(condition, v));
  if (bad.length === 0) return { outcome: 'pass', values, message: `${described.join(', ')}: ${condition.text}` };
  return { outcome: 'fail', values, message: `${bad.map(({ i }) => described[i]).join(', ')}: not ${condition.text}` };
}

/** One api/v1/query answer (status code and body) as a measurement. */
export function judgePrometheus(status: number, body: string, condition: Condition, onEmpty: EmptyResult): Judged {
  let answer: PromAnswer;
  try {
    answer = JSON.parse(body) as PromAnswer;
  } catch {
    return { outcome: 'error', message: `HTTP ${status}: not a Prometheus answer: ${JSON.stringify(body.slice(0, 80))}` };
  }
  if (answer.status !== 'success') return { outcome: 'error', message: `HTTP ${status}: ${answer.errorType ? `${answer.errorType}: ` : ''}${answer.error ?? 'query failed'}` };
  const data = answer.data ?? {};
  if (data.resultType === 'scalar') {
    const v = Array.isArray(data.result) ? Number(data.result[1]) : NaN;
    return judgeValues([v], condition, onEmpty);
  }
  if (data.resultType === 'vector' && Array.isArray(data.result)) {
    const series = data.result as Array<{ metric?: unknown; value?: unknown[] }>;
    const values = series.map((s) => Number(Array.isArray(s.value) ? s.value[1] : NaN));
    const described = series.map((s, i) => `${fmt(values[i]!)}${series.length > 1 ? ` ${labelsText(s.metric)}` : ''}`);
    return judgeValues(values, condition, onEmpty, described);
  }
  return { outcome: 'error', message: `the query returned a ${data.resultType ?? 'result of no type'}: an instant vector or a scalar is needed` };
}
