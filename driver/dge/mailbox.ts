/**
 * The DGE mailbox rule (seed 004 §7.2 QUIRK): a DGE operation starts with all 16 DMA channels
 * enabled (0xFFFF); for every mailbox whose priority is lower than the operation's priority value
 * (operation priority > mailbox priority), the channel mask is ANDed with that mailbox's bitmask.
 * The default mailbox {0, 0xFF, 0xFFFF} never masks.
 */
import { NxdmaError } from '../../common/errors.ts';
import {
  ALL_DMA_CHANNELS,
  type DgeMailbox,
  checkMailbox,
  dgeHostLayout,
} from '../../csr/formats/dge-host.ts';

/** Largest operation priority value (the mailbox priority field's maximum, 0xff). */
export const MAX_DGE_PRIORITY = dgeHostLayout().mailbox.priority.max;

/**
 * The 16-bit DMA-channel mask a DGE operation of priority value `priority` may use under
 * `mailboxes` (at most the table's four entries). Pure: no device access.
 */
export function effectiveDmaMask(mailboxes: readonly DgeMailbox[], priority: number): number {
  const max = dgeHostLayout().mailbox.entries;
  if (!Array.isArray(mailboxes) || mailboxes.length > max) {
    throw new NxdmaError(
      'BAD_ARGUMENT',
      `effectiveDmaMask: expected at most ${max} mailboxes, got ${Array.isArray(mailboxes) ? mailboxes.length : String(mailboxes)}`,
      {
        where: 'effectiveDmaMask.mailboxes',
        expected: `an array of 0..${max} mailboxes`,
        actual: Array.isArray(mailboxes) ? mailboxes.length : String(mailboxes),
      },
    );
  }
  if (!Number.isInteger(priority) || priority < 0 || priority > MAX_DGE_PRIORITY) {
    throw new NxdmaError(
      'BAD_ARGUMENT',
      `effectiveDmaMask: priority must be an integer 0..${MAX_DGE_PRIORITY}, got ${String(priority)}`,
      { where: 'effectiveDmaMask.priority', expected: `0..${MAX_DGE_PRIORITY}`, actual: priority },
    );
  }
  mailboxes.forEach((m, i) => checkMailbox(m, `effectiveDmaMask.mailboxes[${i}]`));
  let mask = ALL_DMA_CHANNELS;
  for (const m of mailboxes) {
    if (priority > m.priority) mask &= m.bitmask;
  }
  return mask;
}
