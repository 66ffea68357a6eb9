import { Refusal } from '../refusals/refusal.js';
import { money } from '../money/money.js';

/** The billing-setting fields the rules look at (from a PUT or a customer-create body). */
export interface BillingSettingRuleInput {
  taxExempt?: boolean | null;
  taxExemptCode?: string | null;
  autoCollect?: boolean | null;
  rechargeType?: string | null;
  rechargeThresholdAmount?: string | null;
  rechargeTargetAmount?: string | null;
}

export interface PeriodRuleInput {
  type?: string | null;
  interval?: string | null;
  day?: number | null;
  month?: number | null;
}

/**
 * Rules that hold for every billing setting, wherever it is written. `prefix`
 * is the field path of the setting in the body ('' or 'billingSetting.').
 */
export function checkBillingSettingRules(setting: BillingSettingRuleInput, context: { hasPaymentMethod: boolean }, prefix = '') {
  if (setting.taxExempt && !setting.taxExemptCode) {
    throw Refusal.invalid('required when taxExempt is true', `${prefix}taxExemptCode`, 'value_required');
  }
  if (setting.autoCollect && !context.hasPaymentMethod) {
    throw Refusal.invalid('can only be true when the customer has a payment method on file', `${prefix}autoCollect`, 'value_invalid');
  }
  if (setting.rechargeType === 'BringBalanceBackTo') {
    const [threshold, target] = (['rechargeThresholdAmount', 'rechargeTargetAmount'] as const).map((field) => {
      const value = setting[field];
      if (value == null) throw Refusal.invalid('required when rechargeType is BringBalanceBackTo', `${prefix}${field}`, 'value_required');
      if (money(value).isNegative()) throw Refusal.invalid('must not be negative', `${prefix}${field}`, 'value_invalid');
      return money(value);
    });
    if (threshold && target?.lte(threshold)) {
      throw Refusal.invalid('must be above rechargeThresholdAmount', `${prefix}rechargeTargetAmount`, 'value_invalid');
    }
  }
}

/**
 * A day belongs only to a specified date, and a month only to a yearly specified
 * date; a specified date needs them. `interval` defaults to the one given.
 */
export function checkPeriodDayAndMonth(period: PeriodRuleInput, key: string, interval = period.interval) {
  const specified = period.type === 'SpecifiedDate';
  if (!specified && period.day != null) throw Refusal.invalid('only allowed when type is SpecifiedDate', `${key}.day`, 'value_invalid');
  if ((!specified || interval !== 'Yearly') && period.month != null) {
    throw Refusal.invalid('only allowed when type is SpecifiedDate and interval is Yearly', `${key}.month`, 'value_invalid');
  }
  if (specified && period.day == null) throw Refusal.invalid('required when type is SpecifiedDate', `${key}.day`, 'value_required');
  if (specified && interval === 'Yearly' && period.month == null) {
    throw Refusal.invalid('required when type is SpecifiedDate and interval is Yearly', `${key}.month`, 'value_required');
  }
}

/** At most one configuration per interval, each with its day and month rules. */
export function checkBillingPeriodConfigurations(configurations: readonly PeriodRuleInput[], prefix = '') {
  const seen = new Set<string>();
  configurations.forEach((c, i) => {
    const key = `${prefix}billingPeriodConfigurations[${i}]`;
    // the schema requires an interval; one without is left to the schema's own refusal
    const interval = c.interval ?? '';
    if (seen.has(interval)) throw Refusal.invalid(`only one ${interval} configuration`, `${key}.interval`, 'value_invalid');
    seen.add(interval);
    checkPeriodDayAndMonth(c, key);
  });
}
