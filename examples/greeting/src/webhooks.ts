import { AdmissionDenied, type Defaulter, type Validator } from '@capstan/runtime';
import { invalid, type Warnings } from '@capstan/runtime/webhook';
import type { Greeting } from './api/index.js';

/** While set to `"true"`, the Greeting cannot be deleted. */
export const PROTECTED_ANNOTATION = 'example.capstan.dev/protected';

/** The message of a Greeting created without one. */
export const DEFAULT_MESSAGE = 'Hello';

/**
 * Defaults a Greeting: no message means {@link DEFAULT_MESSAGE}, and recipients lose surrounding
 * spaces. (A constant default alone would belong in the CRD schema's `default:`; trimming cannot.)
 */
export class GreetingDefaulter implements Defaulter<Greeting> {
  default(greeting: Greeting): Greeting {
    greeting.spec = { ...greeting.spec, message: greeting.spec?.message ?? DEFAULT_MESSAGE };
    if (greeting.spec.recipients) greeting.spec.recipients = greeting.spec.recipients.map((r) => r.trim());
    return greeting;
  }
}

/**
 * Checks a Greeting: each recipient once (the message would say it twice), and no deleting while
 * {@link PROTECTED_ANNOTATION} is `"true"`.
 */
export class GreetingValidator implements Validator<Greeting> {
  validateCreate(greeting: Greeting): Warnings {
    return checkRecipients(greeting);
  }

  validateUpdate(_old: Greeting, greeting: Greeting): Warnings {
    return checkRecipients(greeting);
  }

  validateDelete(greeting: Greeting): Warnings {
    if (greeting.metadata.annotations?.[PROTECTED_ANNOTATION] === 'true') {
      throw new AdmissionDenied(
        `Greeting ${greeting.metadata.name} is protected: remove the ${PROTECTED_ANNOTATION} annotation to delete it`,
      );
    }
    return undefined;
  }
}

function checkRecipients(greeting: Greeting): Warnings {
  const seen = new Set<string>();
  const causes = (greeting.spec?.recipients ?? []).flatMap((recipient, i) => {
    if (!seen.has(recipient)) {
      seen.add(recipient);
      return [];
    }
    return [
      {
        field: `spec.recipients[${i}]`,
        message: `Duplicate value: ${JSON.stringify(recipient)}`,
        reason: 'FieldValueDuplicate',
      },
    ];
  });
  if (causes.length > 0) throw invalid('Greeting', greeting.metadata.name, causes);
  return greeting.spec?.recipients?.length ? undefined : ['no recipients: the greeting has a single line'];
}
