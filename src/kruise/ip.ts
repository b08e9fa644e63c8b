// IP addresses as kube-apiserver reads them (k8s.io/utils/net ParseIPSloppy = Go's net.ParseIP that
// also takes IPv4 octets with leading zeros), for Service validation and the sandbox's allocators.
// An IP is 16 bytes (IPv4 as ::ffff:a.b.c.d, like Go), so an IPv4-mapped IPv6 address is IPv4.

export type IPFamily = 'IPv4' | 'IPv6';

export interface ParsedIP {
  bytes: Uint8Array;
  family: IPFamily;
}

const V4_PREFIX = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff];

function parseV4(s: string): number[] | undefined {
  const parts = s.split('.');
  if (parts.length !== 4) return undefined;
  const out: number[] = [];
  for (const p of parts) {
    if (!/^[0-9]+$/.test(p)) return undefined;
    const n = Number(p);
    if (n > 255) return undefined;
    out.push(n);
  }
  return out;
}

function parseV6(s: string): number[] | undefined {
  if (s.includes('%')) return undefined; // zones are not IPs (Go's ParseIP refuses them)
  const halves = s.split('::');
  if (halves.length > 2) return undefined;
  const group = (text: string): number[] | undefined => {
    if (text === '') return [];
    const out: number[] = [];
    const parts = text.split(':');
    for (let i = 0; i < parts.length; i++) {
      const p = parts[i]!;
      if (i === parts.length - 1 && p.includes('.')) {
        const v4 = parseV4(p);
        if (!v4) return undefined;
        out.push(v4[0]!, v4[1]!, v4[2]!, v4[3]!);
        continue;
      }
      if (!/^[0-9a-fA-F]{1,4}$/.test(p)) return undefined;
      const n = parseInt(p, 16);
      out.push(n >> 8, n & 0xff);
    }
    return out;
  };
  const head = group(halves[0]!);
  const tail = halves.length === 2 ? group(halves[1]!) : [];
  if (!head || !tail) return undefined;
  if (halves.length === 1) return head.length === 16 ? head : undefined;
  const fill = 16 - head.length - tail.length;
  if (fill < 2) return undefined; // "::" stands for at least one group
  return [...head, ...new Array<number>(fill).fill(0), ...tail];
}

/** The address, or undefined when Go's ParseIPSloppy would return nil. */
export function parseIP(text: string): ParsedIP | undefined {
  const v4 = text.includes(':') ? undefined : parseV4(text);
  const bytes = v4 ? [...V4_PREFIX, ...v4] : text.includes(':') ? parseV6(text) : undefined;
  if (!bytes) return undefined;
  const isV4 = V4_PREFIX.every((b, i) => bytes[i] === b);
  return { bytes: Uint8Array.from(bytes), family: isV4 ? 'IPv4' : 'IPv6' };
}

const v4 = (ip: ParsedIP): Uint8Array => ip.bytes.subarray(12);

/** Why an external IP is refused (ValidateNonSpecialIP), or undefined. */
export function specialIPProblem(text: string): string | undefined {
  const ip = parseIP(text);
  if (!ip) return 'must be a valid IP address';
  const b = ip.bytes;
  const four = v4(ip);
  const isV4 = ip.family === 'IPv4';
  if (isV4 ? four.every((x) => x === 0) : b.every((x) => x === 0)) return `may not be unspecified (${text})`;
  if (isV4 ? four[0] === 127 : b.subarray(0, 15).every((x) => x === 0) && b[15] === 1) return 'may not be in the loopback range (127.0.0.0/8, ::1/128)';
  if (isV4 ? four[0] === 169 && four[1] === 254 : b[0] === 0xfe && (b[1]! & 0xc0) === 0x80) return 'may not be in the link-local range (169.254.0.0/16, fe80::/10)';
  if (isV4 ? four[0] === 224 && four[1] === 0 && four[2] === 0 : b[0] === 0xff && (b[1]! & 0x0f) === 0x02) {
    return 'may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)';
  }
  return undefined;
}

export interface ParsedCIDR {
  ip: ParsedIP;
  prefix: number;
}

/** "10.96.0.0/12" (ParseCIDRSloppy), or undefined. */
export function parseCIDR(text: string): ParsedCIDR | undefined {
  const slash = text.indexOf('/');
  if (slash < 0) return undefined;
  const ip = parseIP(text.slice(0, slash));
  const bits = text.slice(slash + 1);
  if (!ip || !/^[0-9]{1,3}$/.test(bits)) return undefined;
  const prefix = Number(bits);
  if (prefix > (ip.family === 'IPv4' ? 32 : 128)) return undefined;
  return { ip, prefix };
}

/** Whether `ip` lies in `cidr` (same family only). */
export function cidrContains(cidr: ParsedCIDR, ip: ParsedIP): boolean {
  if (cidr.ip.family !== ip.family) return false;
  const offset = ip.family === 'IPv4' ? 12 : 0;
  for (let bit = 0; bit < cidr.prefix; bit++) {
    const byte = offset + (bit >> 3);
    const mask = 0x80 >> (bit & 7);
    if ((cidr.ip.bytes[byte]! & mask) !== (ip.bytes[byte]! & mask)) return false;
  }
  return true;
}

/** An IPv4 address as a number (for walking an allocation range). */
export function ipv4ToNumber(ip: ParsedIP): number {
  const b = v4(ip);
  return ((b[0]! << 24) >>> 0) + (b[1]! << 16) + (b[2]! << 8) + b[3]!;
}

export function numberToIPv4(n: number): string {
  return [n >>> 24, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff].join('.');
}
