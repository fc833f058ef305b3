import { createHash } from 'node:crypto';
import type { Attribution } from '../../contract/index.js';
import { personNameKey } from '../store/person-name.js';
import type { Store } from '../store/store.js';

/** The namespace of ids made from names (RFC 9562 name-based UUID, version 5): fixed, so ids are stable forever. */
const NAME_NAMESPACE = Buffer.from('6f1d2c44b7e94a0f9d3e5c8b2a417e90', 'hex');

/**
 * The id of a speaker known only by name: a version-5 UUID of the tenant and the matched name, so the same name in
 * the same tenant is the same person across every import, and no two tenants share one. The 5 in its version
 * position tells it from an identity provider's object id.
 */
export function nameBasedPersonId(tenantId: string, name: string): string {
  const hash = createHash('sha1').update(NAME_NAMESPACE).update(`${tenantId}\n${personNameKey(name)}`).digest();
  const bytes = hash.subarray(0, 16);
  bytes[6] = 0x50 | (bytes[6]! & 0x0f);
  bytes[8] = 0x80 | (bytes[8]! & 0x3f);
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** A transcript names more distinct speakers than this only when it is not a transcript; refusing bounds memory. */
export const MAX_SPEAKERS = 2000;

/**
 * Turns the people an import names into attributions, once per distinct name: a name the tenant mapped (`memory
 * admin people set`) gets that identity-provider id, any other name a name-based id. Keeps the participants in the
 * order they first appear.
 */
export class SpeakerDirectory {
  private readonly known = new Map<string, Attribution>();

  constructor(
    private readonly store: Store,
    private readonly tenantId: string,
  ) {}

  /** The attribution of a person given by name, by id, or both; null for nobody (anonymous). */
  async resolve(person: { name?: string | null; idpId?: string } | null): Promise<Attribution> {
    if (person === null || (!person.name && person.idpId === undefined)) return { kind: 'anonymous' };
    const key = person.idpId === undefined ? `name:${personNameKey(person.name!)}` : `id:${person.idpId}`;
    const cached = this.known.get(key);
    if (cached) return cached;
    if (this.known.size >= MAX_SPEAKERS) throw new SpeakerLimitError();
    const attribution = await this.lookUp(person.name ?? undefined, person.idpId);
    this.known.set(key, attribution);
    return attribution;
  }

  /** Everyone resolved so far, first appearance first, without repeats of one identity. */
  participants(): Attribution[] {
    const byId = new Map<string, Attribution>();
    for (const attribution of this.known.values()) byId.set(attribution.idp_id!, byId.get(attribution.idp_id!) ?? attribution);
    return [...byId.values()];
  }

  private async lookUp(name: string | undefined, idpId: string | undefined): Promise<Attribution> {
    const id = idpId ?? (await this.store.findPersonName(this.tenantId, name!)) ?? nameBasedPersonId(this.tenantId, name!);
    return name === undefined ? { kind: 'platform_identity', idp_id: id } : { kind: 'platform_identity', display_name: name, idp_id: id };
  }
}

/** More distinct speakers than MAX_SPEAKERS. */
export class SpeakerLimitError extends Error {
  constructor() {
    super(`more than ${MAX_SPEAKERS} distinct speakers`);
    this.name = 'SpeakerLimitError';
  }
}
