import { isIP } from 'node:net';
import { addressRefusal, classifyAddress, type BackendNetworkPolicy } from './address-policy.js';

const LOOPBACK_NAME = /^(localhost|.+\.localhost)\.?$/i;

/** True when the host (without IPv6 brackets) is a loopback address literal or a `localhost` name. */
function isLoopbackHost(host: string): boolean {
  return LOOPBACK_NAME.test(host) || (isIP(host) !== 0 && classifyAddress(host) === 'loopback');
}

/**
 * Why a URL cannot be an agent backend under the policy, or null when it can: a full https URL without credentials
 * or fragment; plain http only to a loopback host, and only when the operator allows loopback backends; a host that
 * is not a refused address literal or a `localhost` name the policy refuses. A host name is checked again once it is
 * resolved, when a call is made (guardedLookup). Registration and the invoker both ask this, so what would be
 * refused at call time is refused when it is registered.
 */
export function backendUrlProblem(value: string, policy: BackendNetworkPolicy): string | null {
  if (!URL.canParse(value)) return 'must be a full URL, e.g. https://agent.example.com/teammate';
  const url = new URL(value);
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (url.username !== '' || url.password !== '') return 'must not carry credentials: register the secret as secret_ref';
  if (url.hash !== '') return 'must not have a #fragment';
  if (url.protocol === 'http:') {
    if (!isLoopbackHost(host)) return 'must be https (http is accepted for loopback addresses only)';
    if (!policy.allowLoopback) return 'http is accepted only for loopback addresses when the core runs with --allow-http-loopback-backends';
  } else if (url.protocol !== 'https:') {
    return 'must be an https URL';
  }
  if (isIP(host) !== 0) return addressRefusal(host, policy);
  if (LOOPBACK_NAME.test(host) && !policy.allowLoopback && !policy.allowPrivate) {
    return `${host} is a loopback name (the core accepts these with --allow-http-loopback-backends)`;
  }
  return null;
}
