import { codingAgentSuite } from './support/coding-agent-suite';

// The real claude-code CLI (the version package.json pins) behind countersign-hook: docs/coding-agents.md.
codingAgentSuite('claude-code');
