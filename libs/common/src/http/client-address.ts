import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import ipaddr from 'ipaddr.js';

/**
 * The client address every per-client rule counts by (api-rules.md § Browser booking: public rate limits, a
 * publishable key's limit per client, holds and bookings per visitor, login lockout): an IPv4 address as it is, an
 * IPv6 address as its /64 prefix (`2001:db8:1:2::/64`), since one subscriber is usually given a whole /64 and could
 * otherwise count as 2^64 visitors. An IPv4-mapped IPv6 address is its IPv4 address. The address is the TCP peer
 * Fastify reports (`request.ip`; trustProxy is off).
 */
export function clientAddressOf(ip: string | undefined): string {
  if (ip === undefined || ip === '') return 'unknown';
  // A link-local peer carries its zone (`fe80::1%eth0`), which names this host's interface, not the client.
  const bare = ip.split('%')[0];
  if (!ipaddr.isValid(bare)) return ip;
  const parsed = ipaddr.parse(bare);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const v6 = parsed as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().toString();
  const prefix = new ipaddr.IPv6([...v6.parts.slice(0, 4), 0, 0, 0, 0]);
  return `${prefix.toString()}/64`;
}

/** The client address of this request, as every per-client rule counts it (clientAddressOf). */
export function clientAddress(request: { ip?: string }): string {
  return clientAddressOf(request.ip);
}

/** The request's client address as a controller parameter. */
export const ClientAddress = createParamDecorator((_data: unknown, context: ExecutionContext): string =>
  clientAddress(context.switchToHttp().getRequest<{ ip?: string }>()),
);
