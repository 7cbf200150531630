// Where a webhook may be delivered while local webhooks are off: only to a globally reachable host.
// The hostname comes from the WHATWG URL parser, which has already turned every IPv4 spelling
// (2130706433, 0x7f.1, 127.1) into dotted decimal and every IPv6 one into its compressed form
// (`[::ffff:127.0.0.1]` becomes `[::ffff:7f00:1]`); so an address is read here as numbers, never
// matched as text. Ranges: the IANA IPv4 and IPv6 Special-Purpose Address Registries (the entries
// whose "Globally Reachable" is False or N/A), multicast, and IPv6 outside 2000::/3 (not allocated
// for global unicast). Decision: an IPv4 address written inside IPv6 (IPv4-mapped, -compatible,
// -translated, NAT64 64:ff9b::/96 and 64:ff9b:1::/48, 6to4, Teredo) is refused whatever it embeds:
// a receiver that wants IPv4 gives its IPv4 address, and a form that carries another address is
// where filters are fooled. Also refused: the few anycast services the registries mark reachable
// inside a refused block (192.0.0.9, 192.0.0.10, parts of 2001::/23), which no webhook receiver is.
// Names other than localhost and *.localhost are not resolved here.

/** A dotted-quad IPv4 address as a number, as the URL parser writes every IPv4 spelling. */
function parseIPv4(text: string): bigint | undefined {
  const parts = text.split(".");
  if (parts.length !== 4 || !parts.every((part) => /^\d{1,3}$/.test(part) && Number(part) < 256)) return undefined;
  return parts.reduce((value, part) => (value << 8n) | BigInt(part), 0n);
}

/**
 * An IPv6 address as a number, in the hex form the URL parser writes (`::` for zeros, never a
 * dotted tail: a text with one is not an address here, and so refused).
 */
function parseIPv6(text: string): bigint | undefined {
  const halves = text.split("::");
  const [head = [], tail = []] = halves.map((half) => (half ? half.split(":") : []));
  const zeros = 8 - head.length - tail.length;
  const groups = halves.length === 1 ? head : zeros > 0 ? [...head, ...Array<string>(zeros).fill("0"), ...tail] : [];
  if (halves.length > 2 || groups.length !== 8 || !groups.every((group) => /^[0-9a-f]{1,4}$/i.test(group)))
    return undefined;
  return BigInt(`0x${groups.map((group) => group.padStart(4, "0")).join("")}`);
}

/**
 * [base, prefix bits, globally reachable] of each range, from its CIDR text: read on the first webhook
 * URL checked, not at every cold start of the Worker.
 */
const ranges = (parse: (text: string) => bigint | undefined, table: [string, boolean][]) => {
  let read: (readonly [bigint, number, boolean])[] | undefined;
  return () =>
    (read ??= table.map(([cidr, global]) => {
      const [address, bits] = cidr.split("/") as [string, string];
      return [parse(address)!, Number(bits), global] as const;
    }));
};

const IPV4 = ranges(parseIPv4, [
  ["0.0.0.0/0", true],
  ["0.0.0.0/8", false], // "this network"
  ["10.0.0.0/8", false], // private
  ["100.64.0.0/10", false], // shared address space (carrier-grade NAT)
  ["127.0.0.0/8", false], // loopback
  ["169.254.0.0/16", false], // link-local (cloud metadata services live here)
  ["172.16.0.0/12", false], // private
  ["192.0.0.0/24", false], // IETF protocol assignments
  ["192.0.2.0/24", false], // documentation (TEST-NET-1)
  ["192.88.99.0/24", false], // deprecated 6to4 relay anycast
  ["192.168.0.0/16", false], // private
  ["198.18.0.0/15", false], // benchmarking
  ["198.51.100.0/24", false], // documentation (TEST-NET-2)
  ["203.0.113.0/24", false], // documentation (TEST-NET-3)
  ["224.0.0.0/4", false], // multicast
  ["240.0.0.0/4", false], // reserved, and 255.255.255.255 (limited broadcast)
]);

const IPV6 = ranges(parseIPv6, [
  ["::/0", false], // outside global unicast: ::1, ::, IPv4-compatible ::/96, IPv4-mapped ::ffff:0:0/96,
  //                 IPv4-translated ::ffff:0:0:0/96, NAT64 64:ff9b::/96 and 64:ff9b:1::/48, discard 100::/64,
  //                 SRv6 5f00::/16, unique-local fc00::/7, link-local fe80::/10, site-local fec0::/10,
  //                 multicast ff00::/8
  ["2000::/3", true], // global unicast, but:
  ["2001::/23", false], // IETF protocol assignments: Teredo 2001::/32, benchmarking, ORCHID, ...
  ["2001:db8::/32", false], // documentation
  ["2002::/16", false], // 6to4: carries an IPv4 address
  ["3fff::/20", false], // documentation
]);

/** The most specific range of `table` that holds `address` says whether it is globally reachable. */
function globallyReachable(address: bigint, width: number, table: ReturnType<ReturnType<typeof ranges>>): boolean {
  let best: (typeof table)[number] | undefined;
  for (const range of table) {
    const shift = BigInt(width - range[1]);
    if (address >> shift === range[0] >> shift && (!best || range[1] > best[1])) best = range;
  }
  return best?.[2] ?? false;
}

/**
 * `hostname` without its trailing dots, read again by the URL parser; undefined when nothing is left or
 * the parser refuses what is. Decision (docs/api.md part 12): a host ending in any number of dots is the
 * host without them, as a resolver that drops empty labels reads it. The parser reads one trailing dot
 * itself (`127.0.0.1.` is 127.0.0.1), but a name ending in two or more is left as text to it
 * (`127.0.0.1..`, `2130706433..`, `0x7f.0.0.1..`), which must not pass for a public name.
 */
function withoutTrailingDots(hostname: string): string | undefined {
  const host = hostname.toLowerCase();
  const trimmed = host.replace(/\.+$/, "");
  if (trimmed === "") return undefined;
  if (trimmed === host) return host;
  try {
    return new URL(`http://${trimmed}/`).hostname;
  } catch {
    return undefined;
  }
}

/**
 * Whether a webhook may reach `hostname` (a URL's `hostname`, IPv6 in brackets) while local webhooks
 * are off: a name other than localhost and *.localhost, or a globally reachable address.
 */
export function isPublicWebhookHost(hostname: string): boolean {
  const host = withoutTrailingDots(hostname);
  if (host === undefined || host === "localhost" || host.endsWith(".localhost")) return false;
  if (host.startsWith("[")) {
    const v6 = host.endsWith("]") ? parseIPv6(host.slice(1, -1)) : undefined;
    return v6 !== undefined && globallyReachable(v6, 128, IPV6());
  }
  const v4 = parseIPv4(host);
  if (v4 !== undefined) return globallyReachable(v4, 32, IPV4());
  // The URL parser reads a name ending in a number as IPv4 and refuses it when it is not one.
  return !/^[\d.]+$/.test(host);
}
