import { describe, expect, it } from 'vitest';
import { parseGatewayConfig } from '../../src/gateway/gateway-config';
import { isCountersignError } from '../../src/protocol/errors';

const good = `{
  "agent_name": "Desk agent",
  "expiry_seconds": 90,
  "upstreams": [
    {
      "name": "files",
      "command": "npx",
      "args": ["@modelcontextprotocol/server-filesystem", "/home/me/notes"],
      "tools": { "allow": ["read_*"], "deny": ["move_file"] }
    },
    {
      "name": "shop",
      "url": "https://shop.example/mcp",
      "headers": { "Authorization": "Bearer t" },
      "session": { "kind": "signed_in", "account": "sam@example.com" }
    }
  ]
}`;

function message(text: string): string {
  try {
    parseGatewayConfig(text, 'gw.json');
  } catch (error) {
    expect(isCountersignError(error, 'ERR_ARGUMENT_INVALID')).toBe(true);
    return (error as Error).message;
  }
  throw new Error('accepted');
}

describe('parseGatewayConfig', () => {
  it('reads a config with a stdio and an HTTP upstream', () => {
    const config = parseGatewayConfig(good, 'gw.json');
    expect(config.agent_name).toBe('Desk agent');
    expect(config.upstreams.map((u) => u.name)).toEqual(['files', 'shop']);
    expect(config.upstreams[0]).toMatchObject({ command: 'npx', tools: { allow: ['read_*'], deny: ['move_file'] } });
  });
  it('names the line and the field of a wrong value', () => {
    expect(message(good.replace('"expiry_seconds": 90', '"expiry_seconds": 5'))).toMatch(/^gw\.json:3: expiry_seconds: /);
    expect(message(good.replace('"name": "shop"', '"name": "my__shop"'))).toMatch(/^gw\.json:12: upstreams\.1\.name: /);
  });
  it('names the line of an unknown member', () => {
    const text = good.replace('"command": "npx",', '"command": "npx",\n      "enviroment": {},');
    expect(message(text)).toMatch(/^gw\.json:\d+: upstreams\.0/);
  });
  it('refuses two upstreams with one name', () => expect(message(good.replace('"name": "shop"', '"name": "files"'))).toMatch(/upstreams: expected each upstream name once/));
  it('refuses a name that ends with "_" (files_ and files would both expose files___x)', () =>
    expect(message(good.replace('"name": "shop"', '"name": "files_"'))).toMatch(/^gw\.json:12: upstreams\.1\.name: .*not ending with "_"/));
  it('refuses an upstream with neither command nor url', () => expect(message('{"upstreams": [{"name": "x"}]}')).toMatch(/upstreams\.0/));
  it('names the line of a JSON syntax error, and refuses comments and trailing commas', () => {
    expect(message('{\n  "upstreams": [\n  ,]\n}')).toMatch(/^gw\.json:3: expected JSON/);
    expect(message('{\n// a comment\n"upstreams": []}')).toMatch(/^gw\.json:2: expected JSON/);
    expect(message('{"upstreams": [],}')).toMatch(/expected JSON/);
    expect(message('')).toMatch(/expected JSON/);
  });
  it('refuses a header value with a line break (it would inject another header)', () =>
    expect(message(good.replace('"Bearer t"', '"Bearer t\\r\\nX-Evil: 1"'))).toMatch(/headers/));
});
