/** The hosts of Microsoft's own identity clouds: MSAL validates these itself (instance discovery). */
const MICROSOFT_AUTHORITY_HOSTS = new Set([
  'login.microsoftonline.com',
  'login.microsoft.com',
  'login.windows.net',
  'login.microsoftonline.us',
  'login.chinacloudapi.cn',
  'login.partner.microsoftonline.cn',
]);

/** True for Entra ID (and Microsoft's national clouds); false for any other issuer, like a core's built-in one. */
export function isMicrosoftAuthority(authority: string): boolean {
  return MICROSOFT_AUTHORITY_HOSTS.has(new URL(authority).hostname.toLowerCase());
}
