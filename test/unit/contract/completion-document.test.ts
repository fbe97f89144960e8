import { describe } from 'vitest';
import { completionDocument, completionJsonSchema } from '../../../src/contract/completion-document.js';
import { itKeepsItsContract, MISSING } from './document-case.js';

describe('contract/completion-document', () => {
  itKeepsItsContract('ferry completion --json', completionJsonSchema, () => completionDocument({ shell: 'zsh',
    script: 'autoload -U +X bashcompinit && bashcompinit\n_ferry() {\n  COMPREPLY=()\n}\ncomplete -F _ferry ferry' }), [
    { why: 'a shell ferry writes no completion for', path: ['shell'], value: 'fish' },
    { why: 'the script left out', path: ['script'], value: MISSING },
    { why: 'an unknown key', path: ['lines'], value: 5 },
  ]);
});
