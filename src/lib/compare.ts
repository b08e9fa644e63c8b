// String orders without Intl. The first String#localeCompare of a process builds an ICU collator,
// about 8 ms on Node 20: more than `describe rollout` spends on its three round trips. Kubernetes
// names, namespaces, revisions and RFC 3339 timestamps are ASCII, where these orders agree with the
// collator's for lowercase text.

/** Plain code-unit order (what Go's sort.Strings and kubectl's name sort use). */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Code-unit order, but runs of digits compare by value: web-2 before web-10, node-9 before node-10. */
export function compareNatural(a: string, b: string): number {
  const chunk = /(\d+)|(\D+)/g;
  const xs = a.match(chunk) ?? [];
  const ys = b.match(chunk) ?? [];
  for (let i = 0; i < Math.min(xs.length, ys.length); i++) {
    const x = xs[i]!;
    const y = ys[i]!;
    const xDigits = x.charCodeAt(0) >= 48 && x.charCodeAt(0) <= 57;
    const yDigits = y.charCodeAt(0) >= 48 && y.charCodeAt(0) <= 57;
    if (xDigits && yDigits) {
      // By value without Number(): a 30-digit run must not lose precision. Shorter (no leading zeros) is smaller.
      const xv = x.replace(/^0+(?=\d)/, '');
      const yv = y.replace(/^0+(?=\d)/, '');
      if (xv.length !== yv.length) return xv.length - yv.length;
      if (xv !== yv) return compareText(xv, yv);
    } else if (x !== y) {
      return compareText(x, y);
    }
  }
  return xs.length - ys.length || compareText(a, b);
}
