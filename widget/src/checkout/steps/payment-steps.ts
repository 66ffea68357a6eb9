/**
 * The last two steps, loaded as one chunk after the first screen is shown (see
 * <renew-checkout>'s firstUpdated): card entry in both modes, the hosted frame and
 * its protocol, the card rules. A shopper choosing a plan does not wait for them.
 */
import './card-step.js';
import './done-step.js';
