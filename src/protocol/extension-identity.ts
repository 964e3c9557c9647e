// Who the extension is, for everything that must name it: the manifest (wxt.config.ts), and the
// bridge's host manifests, whose allowed_origins / allowed_extensions decide which extension the
// browser lets start the bridge (docs/bridge-protocol.md, section 14). Plain constants, so the
// extension build and the Node bridge share one copy.
//
// The public half of the RSA key that pins the Chromium extension ID
// (first 32 hex digits of sha256(SPKI DER), mapped 0-f → a-p). Only the public key is
// needed to load the unpacked extension; no private key exists in this repository.
// Store builds leave it out (see wxt.config.ts).
export const MANIFEST_PUBLIC_KEY =
  'MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAjEssUNrQ02r4ULZsc/WtiaMBHLLXnzFjEoVdn6m0LU+lIm7Zh5oTARRNPBxyv6JTywypJcFauqQENM67sUx16qksbSZFwL05AsM7UQMWpw3yw8phY67PAvMMEAcoqYjTxU/R5JgU+1tXf63zczkMFLHPagLzT56kHW4rnbEdZkSktpkDHHjxx7B211sTFUYaZ7Wfac74AlB2Fd8eKg4pwNLqFdWRnQs3vAvjjTDg3rPMa5Lpn0VBVpi+H9zbU9+e1kRedIFTOamEnk9xuz+M74+jvtTEsTmeCEwBYljrHlTIsMzJxhdi1L9vQhwYnCqU+hLHQzHJ7lr5x92l57BaRQIDAQAB';
export const CHROMIUM_EXTENSION_ID = 'mlfaahkflpghlfdpkpmonibnlhieinil';
export const FIREFOX_EXTENSION_ID = 'countersign@countersign.dev';
