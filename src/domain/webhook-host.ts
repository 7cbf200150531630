// Where a webhook may be delivered while local webhooks are off: only to a globally reachable host.
// The hostname comes from the WHATWG URL parser, which has already turned every IPv4 spelling
// (2130706433, 0x7f.1, 127.1) into dotted decimal and every IPv6 one into its compressed form
// (`[::ffff:127.0.0.1]` becomes `[::ffff:7f00:1]`); so an address is read here as numbers, never
// matched as text. Ranges: the IANA IPv4 and IPv6 Special-Purpose Address Registries (the entries
// whose "Globally Reachable" is False or N/A), multicast, and IPv6 outside 2000::/3 (not allocated
// for global unicast). Decision: an IPv4 address written inside IPv6 (IPv4-mapped, -compatible,
// -translated, NAT64 64:ff9b::/96 and 64:ff9b:1::/48, 6to4, Teredo) is refused whatever it embeds:
// a receiver that wants IPv4 gives its IPv4 address, and a form that carries another address is
// where filters are fooled. Names other than localhost and *.localhost are not resolved here.

interface Range {
  readonly base: bigint;
  readonly bits: number;
  readonly global: boolean;
}

function parseIPv4(text: string): bigint | undefined {
  const parts = text.split(".");
  if (parts.length !== 4 || parts.some((part) => !/^\d{1,3}$/.test(part) || Number(part) > 255)) return undefined;
  return parts.reduce((value, part) => (value << 8n) | BigInt(part), 0n);
}

/** The 128-bit value of an IPv6 address in any RFC 4291 text form (`::`, a dotted IPv4 tail). */
function parseIPv6(text: string): bigint | undefined {
  let groups = text;
  const dotted = /(?:^|:)(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const v4 = parseIPv4(dotted[1]!);
    if (v4 === undefined) return undefined;
    groups = `${text.slice(0, text.length - dotted[1]!.length)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const halves = groups.split("::");
  if (halves.length > 2) return undefined;
  const head = halves[0] ? halves[0].split(":") : [];
  const tail = halves.length === 2 && halves[1] ? halves[1].split(":") : [];
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  const all = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill("0"), ...tail];
  if (all.some((group) => !/^[0-9a-f]{1,4}$/i.test(group))) return undefined;
  return all.reduce((value, group) => (value << 16n) | BigInt(`0x${group}`), 0n);
}

function ranges(width: 32 | 128, table: readonly (readonly [cidr: string, global: boolean])[]): Range[] {
  return table.map(([cidr, global]) => {
    const [address, bits] = cidr.split("/") as [string, string];
    const base = width === 32 ? parseIPv4(address) : parseIPv6(address);
    if (base === undefined) throw new Error(`bad range ${cidr}`);
    return { base, bits: Number(bits), global };
  });
}

const IPV4 = ranges(32, [
  ["0.0.0.0/0", true],
  ["0.0.0.0/8", false], // "this network"
  ["10.0.0.0/8", false], // private
  ["100.64.0.0/10", false], // shared address space (carrier-grade NAT)
  ["127.0.0.0/8", false], // loopback
  ["169.254.0.0/16", false], // link-local (cloud metadata services live here)
  ["172.16.0.0/12", false], // private
  ["192.0.0.0/24", false], // IETF protocol assignments ...
  ["192.0.0.9/32", true], // ... but for the port control anycast
  ["192.0.0.10/32", true], // ... and the TURN anycast
  ["192.0.2.0/24", false], // documentation (TEST-NET-1)
  ["192.88.99.0/24", false], // deprecated 6to4 relay anycast
  ["192.168.0.0/16", false], // private
  ["198.18.0.0/15", false], // benchmarking
  ["198.51.100.0/24", false], // documentation (TEST-NET-2)
  ["203.0.113.0/24", false], // documentation (TEST-NET-3)
  ["224.0.0.0/4", false], // multicast
  ["240.0.0.0/4", false], // reserved, and 255.255.255.255 (limited broadcast)
]);

const IPV6 = ranges(128, [
  ["::/0", false], // outside global unicast: ::1, ::, IPv4-compatible ::/96, IPv4-mapped ::ffff:0:0/96,
  //                 IPv4-translated ::ffff:0:0:0/96, NAT64 64:ff9b::/96 and 64:ff9b:1::/48, discard 100::/64,
  //                 SRv6 5f00::/16, unique-local fc00::/7, link-local fe80::/10, site-local fec0::/10, multicast ff00::/8
  ["2000::/3", true], // global unicast, but:
  ["2001::/23", false], // IETF protocol assignments: Teredo 2001::/32, benchmarking, ORCHID, ...
  ["2001:1::1/128", true], // ... but for the port control anycast
  ["2001:1::2/128", true], // ... the TURN anycast
  ["2001:1::3/128", true], // ... DNS-SD SRP anycast
  ["2001:3::/32", true], // ... AMT
  ["2001:4:112::/48", true], // ... AS112-v6
  ["2001:20::/28", true], // ... ORCHIDv2
  ["2001:30::/28", true], // ... DRIP DETs
  ["2001:db8::/32", false], // documentation
  ["2002::/16", false], // 6to4: carries an IPv4 address
  ["3fff::/20", false], // documentation
]);

/** The most specific range of `table` that holds `address` says whether it is globally reachable. */
function globallyReachable(address: bigint, width: number, table: readonly Range[]): boolean {
  let best: Range | undefined;
  for (const range of table) {
    const shift = BigInt(width - range.bits);
    if (address >> shift === range.base >> shift && (!best || range.bits > best.bits)) best = range;
  }
  return best?.global ?? false;
}

/**
 * Whether a webhook may reach `hostname` (a URL's `hostname`, IPv6 in brackets) while local webhooks
 * are off: a name other than localhost and *.localhost, or a globally reachable address.
 */
export function isPublicWebhookHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, "");
  if (host === "localhost" || host.endsWith(".localhost") || host === "") return false;
  if (host.startsWith("[")) {
    const v6 = host.endsWith("]") ? parseIPv6(host.slice(1, -1)) : undefined;
    return v6 !== undefined && globallyReachable(v6, 128, IPV6);
  }
  const v4 = parseIPv4(host);
  if (v4 !== undefined) return globallyReachable(v4, 32, IPV4);
  // The URL parser reads a name ending in a number as IPv4 and refuses it when it is not one.
  return !/^[\d.]+$/.test(host);
}
