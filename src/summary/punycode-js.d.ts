// punycode.js ships no types. We use one function of it (see origin.ts for why this package).
declare module 'punycode.js' {
  const punycode: {
    /** Decodes every `xn--` label of an ASCII domain name; other labels are returned as they are. */
    toUnicode(domain: string): string;
  };
  export default punycode;
}
