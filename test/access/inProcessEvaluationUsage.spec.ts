import { describe } from 'vitest';
import { createInProcessEvaluationUsage } from '../../src/access/evaluationUsage.js';
import { evaluationUsageContract } from './evaluationUsageContract.js';

describe('in-process evaluation usage', () => {
  evaluationUsageContract(() => createInProcessEvaluationUsage());
});
