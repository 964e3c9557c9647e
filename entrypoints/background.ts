// First, so that the bridge starts while the rest of the worker's code is evaluated.
import '../src/extension/early-native-port';
import * as z from 'zod';
import { startBackground } from '../src/extension/background-main';

// zod's JIT probes with `new Function('')`: the extension CSP forbids it and web-ext lint flags it.
z.config({ jitless: true });

export default defineBackground(() => startBackground());
