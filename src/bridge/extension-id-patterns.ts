/**
 * The shapes of extension ids the bridge accepts, in their own module: the host's start reads
 * one to recognise how Firefox started it, and must not load the installer to do so.
 */

/** Chromium extension ids: 32 letters a-p (the SHA-256 of the key, hex mapped 0-f → a-p). */
export const CHROMIUM_ID_PATTERN = /^[a-p]{32}$/;
/** Firefox add-on ids: an email-like id or a {GUID}. */
export const FIREFOX_ID_PATTERN = /^(?:[A-Za-z0-9._+-]{1,80}@[A-Za-z0-9.-]{1,80}|\{[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}\})$/;
