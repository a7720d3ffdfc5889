export * from './input.js';
export { assess } from './assess.js';
export {
  compareTransfer,
  matchExpectations,
  selectTransfer,
  type Comparison,
  type ExpectedPaymentMatch,
  type TransferComparison,
} from './matching.js';
