/** Decimal money and rounding to a currency's minor units (`@renew/billing-service/money`). */
export { minorUnits, money, roundToCurrency, type Money } from './money.js';
