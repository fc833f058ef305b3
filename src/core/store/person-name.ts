/**
 * How speaker names are matched across transcripts and the tenant's people mappings: Unicode-normalised, spacing
 * collapsed, case ignored, so "Ana  Silva" in a Zoom export and "ana silva" in a mapping are one person.
 */
export function personNameKey(name: string): string {
  return name.normalize('NFC').trim().replace(/\s+/g, ' ').toLowerCase();
}
