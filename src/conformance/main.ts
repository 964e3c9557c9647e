import { runConformanceCli } from './conformance-cli';

/**
 * Entry point of `countersign` (bundled into the package by scripts/build-package.mjs): wires the
 * real process into runConformanceCli; nothing else lives here.
 */

process.exitCode = await runConformanceCli({ argv: process.argv.slice(2), stdout: process.stdout, stderr: process.stderr });
