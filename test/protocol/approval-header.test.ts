import { describe, expect, it } from 'vitest';
import { CountersignError, formatApprovalHeader, parseApprovalHeader } from '../../src/protocol';
import { SEED_APPROVAL } from './seed';

const OK = 'operation_id="exc_5Rt2", revision="1791487200-k3Jd9Qx2mW8v"';

describe('section 6 APIs: Poppy-Approval', () => {
  it('ignores members it does not recognise, whatever their type ("Companies MUST ignore members ... they don\'t recognize")', () => {
    expect(parseApprovalHeader(`${OK}, signature=:AAEC:, later=(1 2 "x"), flag, note=token;p=1`)).toEqual(SEED_APPROVAL);
  });

  it('ignores parameters on operation_id and revision (decision: they are how a later version would add to a member)', () => {
    expect(parseApprovalHeader('operation_id="exc_5Rt2";v=2, revision="1791487200-k3Jd9Qx2mW8v";sig=:AA==:;x')).toEqual(SEED_APPROVAL);
  });

  it('accepts the members in either order', () => {
    expect(parseApprovalHeader('revision="1791487200-k3Jd9Qx2mW8v", operation_id="exc_5Rt2"')).toEqual(SEED_APPROVAL);
  });

  it('accepts the optional whitespace RFC 9651 allows (none, tabs, leading and trailing spaces)', () => {
    expect(parseApprovalHeader('operation_id="exc_5Rt2",revision="1791487200-k3Jd9Qx2mW8v"')).toEqual(SEED_APPROVAL);
    expect(parseApprovalHeader('operation_id="exc_5Rt2",\t revision="1791487200-k3Jd9Qx2mW8v"')).toEqual(SEED_APPROVAL);
    expect(parseApprovalHeader(`  ${OK}  `)).toEqual(SEED_APPROVAL);
  });

  it('accepts the approval split over two field lines joined with ", " (RFC 9110 section 5.3)', () => {
    expect(parseApprovalHeader(['operation_id="exc_5Rt2"', 'revision="1791487200-k3Jd9Qx2mW8v"'].join(', '))).toEqual(SEED_APPROVAL);
  });

  it('leaves repeated unknown members to RFC 9651 (the last wins, and we ignore it anyway)', () => {
    expect(parseApprovalHeader(`x=1, ${OK}, x=2`)).toEqual(SEED_APPROVAL);
  });

  it('is not fooled by member names inside Strings, Display Strings or parameters when it looks for duplicates', () => {
    const tricky = `note="operation_id=\\"evil\\", revision=\\"r\\"", d=%"operation_id=%22x%22, ", ${OK};operation_id="p"`;
    expect(parseApprovalHeader(tricky)).toEqual(SEED_APPROVAL);
  });

  it('reports a duplicate even when both values are equal (decision: an approval names one revision, once)', () => {
    expect(() => parseApprovalHeader(`${OK}, operation_id="exc_5Rt2"`)).toThrow(expect.objectContaining({ code: 'ERR_APPROVAL_HEADER_INVALID' }));
  });

  it('accepts and writes IDs of 256 characters', () => {
    const approval = { operation_id: 'o'.repeat(256), revision: '9'.repeat(256) };
    const header = formatApprovalHeader(approval);
    expect(header).toBe(`operation_id="${'o'.repeat(256)}", revision="${'9'.repeat(256)}"`);
    expect(parseApprovalHeader(header)).toEqual(approval);
  });

  it('formatApprovalHeader writes only the two members, in the seed order, even when given more', () => {
    const approval = { revision: '1791487200-k3Jd9Qx2mW8v', extra: 'x', operation_id: 'exc_5Rt2' };
    expect(formatApprovalHeader(approval)).toBe(OK);
  });

  it('formatApprovalHeader refuses an invalid approval with ERR_APPROVAL_INVALID (its input is an approval, not a header)', () => {
    expect(() => formatApprovalHeader({ operation_id: '', revision: 'r' })).toThrow(expect.objectContaining({ code: 'ERR_APPROVAL_INVALID' }));
  });

  it('only ever throws CountersignError, with the parser error as cause', () => {
    try {
      parseApprovalHeader('operation_id=');
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(CountersignError);
      expect((error as CountersignError).cause).toBeInstanceOf(Error);
    }
  });
});
