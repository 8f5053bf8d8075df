/** Parsers of the standard flags' values: each throws commander's error for a bad value. */
import { createRequire } from 'node:module';
import { parseDuration } from '../../helpers/duration.js';
import { parseBindAddress } from './bind-address.js';

const require = createRequire(import.meta.url);
/**
 * commander, required on the first parse: a program that parses no flags skips it (~12 ms). The
 * operator bundle inlines the require (scripts/bundle-operators.mjs looks for the line above).
 */
export const commander = () => require('commander') as typeof import('commander');
/** The error commander reports as a bad value of the flag being parsed. */
const invalid = (message: string) => new (commander().InvalidArgumentError)(message);

export function parseBool(value: string | boolean | undefined): boolean {
  if (value === undefined || value === true) return true;
  switch (String(value).toLowerCase()) {
    case 'true':
    case 't':
    case '1':
      return true;
    case 'false':
    case 'f':
    case '0':
      return false;
    default:
      throw invalid('expected true or false.');
  }
}

export function checkDuration(value: string): string {
  let ms: number;
  try {
    ms = parseDuration(value);
  } catch (err) {
    throw invalid(`${(err as Error).message}.`);
  }
  if (ms < 0) throw invalid(`invalid duration "${value}": must not be negative.`);
  return value;
}

export function checkAddress(value: string): string {
  try {
    parseBindAddress(value);
  } catch (err) {
    throw invalid(`${(err as Error).message}.`);
  }
  return value;
}

export function checkPort(value: string): string {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535) throw invalid('expected a port from 0 to 65535.');
  return value;
}

export function checkChoice(choices: readonly string[]) {
  return (value: string): string => {
    if (!choices.includes(value)) throw invalid(`allowed: ${choices.join(', ')}.`);
    return value;
  };
}
