/**
 * The console's words for a customer's usage this period (issue 41, the customer page's "Usage this period"), in
 * each language; spread into the language tables (messages-en.ts and the others).
 */
export const usageEn = {
  usageTitle: 'Usage this period',
  usageCaption: 'Subscription {id} ({plan}), {from} – {to}',
  colMetric: 'Metric',
  colBilledUnits: 'Billed units',
  colAmountSoFar: 'Amount so far',
  usageTotal: 'Total so far',
} as const;

type UsageWords = Record<keyof typeof usageEn, string>;

export const usageFr: UsageWords = {
  usageTitle: 'Consommation de la période',
  usageCaption: 'Abonnement {id} ({plan}), du {from} au {to}',
  colMetric: 'Mesure',
  colBilledUnits: 'Unités facturées',
  colAmountSoFar: 'Montant à ce jour',
  usageTotal: 'Total à ce jour',
};

export const usageDe: UsageWords = {
  usageTitle: 'Nutzung in diesem Zeitraum',
  usageCaption: 'Abonnement {id} ({plan}), {from} – {to}',
  colMetric: 'Messgröße',
  colBilledUnits: 'Berechnete Einheiten',
  colAmountSoFar: 'Bisheriger Betrag',
  usageTotal: 'Summe bisher',
};

export const usageEs: UsageWords = {
  usageTitle: 'Consumo de este periodo',
  usageCaption: 'Suscripción {id} ({plan}), del {from} al {to}',
  colMetric: 'Métrica',
  colBilledUnits: 'Unidades facturadas',
  colAmountSoFar: 'Importe hasta ahora',
  usageTotal: 'Total hasta ahora',
};
