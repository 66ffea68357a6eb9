/** A capture waiting for its shopper's 3-D Secure challenge, and its completion (README "3-D Secure"). */
export {
  awaitPaymentAuthentication,
  paymentAuthentication,
  authenticationFailed,
  awaitCardAuthentication,
  cardToStore,
  completedCapture,
  recordCompletion,
  recordedFailure,
  recordFailure,
  resumeAuthentication,
  startCompletion,
  stillWaiting,
  type AuthenticationStarted,
  type ClaimedAuthentication,
} from './service.js';
