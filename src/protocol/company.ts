import * as z from 'zod';
import { CountersignError } from './errors';
import { describeValue, expected } from './issues';
import { isWellFormedText } from './json';
import { MAX_COMPANY_NAME_LENGTH } from './limits';
import { parseWith } from './parse-with';
import { urlIsSecure } from './text-schemas';

/**
 * The Company as the User is shown it. Section 5: "The Personal Agent MUST show the User the
 * Company's name". The core text is not available to us; we show `organization.name` from the
 * Company's poppy.json together with the origin the Personal Agent fetched it from
 * (docs/core-assumptions.md, "The Company's name"). The name is the Company's own claim; the
 * origin is what the agent resolved, and the only part a Company can't choose freely.
 */
export type Company = { name: string; origin: string };

const NAME_RULE = `a non-empty string of at most ${MAX_COMPANY_NAME_LENGTH} characters`;

const poppyJsonOrganizationSchema = z.object(
  {
    organization: z.object(
      {
        name: z
          .string({ error: expected(NAME_RULE) })
          .refine((s) => s.trim() !== '', { error: `expected ${NAME_RULE}, got only blanks` })
          .refine((s) => s.length <= MAX_COMPANY_NAME_LENGTH, { error: `expected ${NAME_RULE}` })
          .refine(isWellFormedText, { error: 'expected well-formed Unicode text, got an unpaired surrogate' }),
      },
      { error: expected('an object with name and domain') },
    ),
  },
  { error: expected('an object') },
);

const ORIGIN_RULE = 'a serialized origin such as https://shop.example (https, or http on localhost; scheme, host and port only)';

function checkOrigin(origin: unknown): string {
  if (typeof origin !== 'string') throw new CountersignError('ERR_ARGUMENT_INVALID', `origin: expected ${ORIGIN_RULE}, got ${describeValue(origin)}`);
  let url: URL;
  try {
    url = new URL(origin);
  } catch (cause) {
    throw new CountersignError('ERR_ARGUMENT_INVALID', `origin: expected ${ORIGIN_RULE}, got a string that is not a URL`, { cause });
  }
  const secure = urlIsSecure(url);
  if (!secure) throw new CountersignError('ERR_ARGUMENT_INVALID', `origin: expected ${ORIGIN_RULE}, got the scheme ${url.protocol}${url.protocol === 'http:' ? ' on a host other than localhost' : ''}`);
  // Comparing with url.origin refuses paths, queries, credentials, trailing slashes, default ports
  // and upper case: the origin shown is exactly the one the browser would compare.
  if (url.origin !== origin) throw new CountersignError('ERR_ARGUMENT_INVALID', `origin: expected ${ORIGIN_RULE}, got a URL that is more than its origin (${url.origin})`);
  return origin;
}

/**
 * The Company's name and origin from its poppy.json and the origin the agent fetched it from.
 * Throws ERR_POPPY_JSON_INVALID for a missing or unusable `organization.name`, ERR_ARGUMENT_INVALID
 * for an origin that isn't a serialized https origin.
 */
export function companyFromPoppyJson(poppyJson: unknown, origin: string): Company {
  const checkedOrigin = checkOrigin(origin);
  const { organization } = parseWith(poppyJsonOrganizationSchema, poppyJson, 'ERR_POPPY_JSON_INVALID', 'poppy.json');
  return { name: organization.name, origin: checkedOrigin };
}
