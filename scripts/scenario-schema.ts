/**
 * `npm run conformance:schema`: writes docs/conformance/scenario.schema.json, the JSON Schema of
 * the conformance kit's scenario file, from the zod schema the kit validates with, for editors
 * (`"$schema"` in a scenario). test/conformance/scenario.test.ts fails when the file is stale.
 */
import { writeFileSync } from 'node:fs';
import { scenarioJsonSchema } from '../src/conformance/scenario';

writeFileSync(new URL('../docs/conformance/scenario.schema.json', import.meta.url), scenarioJsonSchema());
