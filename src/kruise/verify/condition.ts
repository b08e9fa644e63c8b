// A check's condition: `result OP NUMBER` with OP one of < > <= >= == != (the one form a Prometheus
// query's value, an HTTP body's JSONPath value or a count is compared with). Parsed once, at load time,
// so a typo is exit 2 before anything is sent. Pure.

export type ConditionOp = '<' | '>' | '<=' | '>=' | '==' | '!=';

export interface Condition {
  op: ConditionOp;
  value: number;
  /** As written, for messages: "result < 0.05". */
  text: string;
}

export class ConditionError extends Error {}

const FORM = /^\s*result\s*(<=|>=|==|!=|<|>)\s*(\S+)\s*$/;

/** `result < 0.05` → { op: '<', value: 0.05 }; anything else is a ConditionError naming the accepted form. */
export function parseCondition(text: string): Condition {
  const m = FORM.exec(text);
  if (!m) throw new ConditionError(`invalid condition ${JSON.stringify(text)}: expected "result OP NUMBER" with OP one of < > <= >= == !=`);
  const raw = m[2]!;
  // Number('') and Number('0x10') are numbers to JavaScript, not to a reader of the condition.
  if (!/^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(raw)) throw new ConditionError(`invalid condition ${JSON.stringify(text)}: ${JSON.stringify(raw)} is not a number`);
  return { op: m[1] as ConditionOp, value: Number(raw), text: `result ${m[1]} ${raw}` };
}

/** Whether `result` satisfies the condition; NaN satisfies none (as in PromQL, where NaN compares false). */
export function conditionHolds(c: Condition, result: number): boolean {
  switch (c.op) {
    case '<':
      return result < c.value;
    case '>':
      return result > c.value;
    case '<=':
      return result <= c.value;
    case '>=':
      return result >= c.value;
    case '==':
      return result === c.value;
    case '!=':
      return !Number.isNaN(result) && result !== c.value;
  }
}
