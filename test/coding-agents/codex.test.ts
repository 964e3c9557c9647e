import { codingAgentSuite } from './support/coding-agent-suite';

// The real codex CLI (the version package.json pins) behind countersign-hook: docs/coding-agents.md.
codingAgentSuite('codex');
