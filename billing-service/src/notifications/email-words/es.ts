import type { EmailWords } from './words.js';

const ref = (reference: string | null) => (reference ? ` (${reference})` : '');

export const es: EmailWords = {
  hello: (name) => (name ? `Hola, ${name}:` : 'Hola:'),
  footer: (brand) => `Recibe este correo porque es cliente de ${brand}.`,
  buttons: {
    paymentMethodUpdate: 'Actualizar mi tarjeta',
    payInvoices: 'Pagar ahora',
    invoices: 'Ver mis facturas',
    authenticatePayment: 'Confirmar mi pago',
  },
  signInButton: 'Acceder a mi cuenta',
  confirmEmailButton: 'Confirmar esta dirección',
  linkLine: (label, url) => `${label}: ${url}`,
  invoiceTable: { subtotal: 'Subtotal', discount: 'Descuento', total: 'Total' },
  refundWays: {
    CreditCard: 'en su tarjeta',
    Cash: 'en efectivo',
    Check: 'mediante cheque',
    DirectDeposit: 'mediante transferencia',
    ACH: 'mediante transferencia ACH',
    other: 'según lo acordado con usted',
  },
  declines: {
    insufficient_funds: 'la tarjeta no tiene fondos suficientes',
    expired_card: 'la tarjeta ha caducado',
    incorrect_cvc: 'el código de seguridad no se aceptó',
    other: 'la tarjeta fue rechazada',
  },
  unknownCardBrand: 'de pago',
  InvoicePost: (v) => ({
    subject: `${v.brand}: factura ${v.number} por ${v.amount}`,
    paragraphs: [`Se ha emitido la factura ${v.number} por ${v.amount}; vence el ${v.dueDate}.`, 'La factura va adjunta en PDF.'],
  }),
  PaymentReceived: (v) => ({
    subject: `${v.brand}: pago de ${v.amount} recibido`,
    paragraphs: [`Hemos recibido su pago de ${v.amount}${ref(v.reference)}. ¡Gracias!`],
  }),
  AuthenticationRequired: (v) => ({
    subject: `${v.brand}: confirme su pago de ${v.amount}`,
    paragraphs: [
      `Su banco le pide que confirme su pago de ${v.amount} antes de realizarlo (3-D Secure).`,
      'Todavía no se ha cobrado nada. Abra el enlace y confirme el pago en la página de su banco.',
    ],
  }),
  PaymentFailed: (v) => ({
    subject: `${v.brand}: su pago de ${v.amount} no se ha podido cobrar`,
    paragraphs: [
      `No hemos podido cobrar su pago de ${v.amount}: ${v.reason}.`,
      'Actualice su método de pago para que su suscripción continúe.',
    ],
  }),
  Refund: (v) => ({
    subject: `${v.brand}: reembolso de ${v.amount}`,
    paragraphs: [`Le hemos reembolsado ${v.amount} de su pago de ${v.paymentAmount} del ${v.paymentDate}, ${v.way}${ref(v.reference)}.`],
  }),
  InvoiceOverdue: (v) => ({
    subject: `${v.brand}: la factura ${v.number} está vencida`,
    paragraphs: [
      `La factura ${v.number} vencía el ${v.dueDate}; quedan ${v.outstanding} pendientes de pago. Páguela para mantener su suscripción.`,
    ],
  }),
  SubscriptionCancellation: (v) => ({
    subject: v.count === 1 ? `${v.brand}: su suscripción está cancelada` : `${v.brand}: sus suscripciones están canceladas`,
    paragraphs: [
      v.count === 1 ? `Su suscripción ${v.subscriptions} está cancelada.` : `Estas suscripciones están canceladas: ${v.subscriptions}.`,
    ],
  }),
  CreditCardExpiry: (v) => ({
    subject: `${v.brand}: su tarjeta terminada en ${v.lastFour} caduca pronto`,
    paragraphs: [
      `Su tarjeta ${v.cardBrand} terminada en ${v.lastFour} caduca a finales de ${v.expiry}.`,
      'Añada una tarjeta nueva para que sus pagos continúen.',
    ],
  }),
  CustomerActivation: (v) => ({
    subject: `${v.brand}: su cuenta está activa`,
    paragraphs: ['Su cuenta y sus suscripciones están activas. ¡Bienvenido!'],
  }),
  CustomerSuspend: (v) => ({
    subject: `${v.brand}: su cuenta está suspendida`,
    paragraphs: [
      `Su cuenta ha sido suspendida: una factura lleva ${v.overdueDays} días vencida.`,
      'Se restablecerá en cuanto se pague el saldo vencido.',
    ],
  }),
  CreditNote: (v) => ({
    subject: `${v.brand}: nota de crédito ${v.number} sobre la factura ${v.invoiceNumber}`,
    paragraphs: [
      `Hemos emitido la nota de crédito ${v.number} por ${v.total} sobre la factura ${v.invoiceNumber}.`,
      ...(v.applied ? [`${v.applied} se descuenta de la factura.`] : []),
      ...(v.credited ? [`${v.credited} queda como saldo a su favor y pagará sus próximas facturas.`] : []),
      ...(v.refunded ? [`${v.refunded} se reembolsa a su medio de pago.`] : []),
    ],
  }),
  UsageThresholdReached: (v) => ({
    subject: `${v.brand}: su consumo de ${v.metric} ha alcanzado ${v.threshold}`,
    paragraphs: [
      `Su consumo de ${v.metric} desde el ${v.periodStart} ha alcanzado ${v.quantity}, por encima del umbral de ${v.threshold} fijado en su suscripción.`,
      'Se facturará en su próxima factura.',
    ],
  }),
  frequency: (interval, count) =>
    interval === 'Monthly' ? (count === 1 ? 'mensual' : `cada ${count} meses`) : count === 1 ? 'anual' : `cada ${count} años`,
  quantityChange: (product, from, to) => `${product}: ${from} → ${to}`,
  SubscriptionChange: (v) => {
    const same = v.fromPlan === v.toPlan;
    const what = v.scheduled
      ? same
        ? `Su suscripción ${v.toPlan} cambiará el ${v.date}, tal como lo solicitó.`
        : `Su suscripción pasará de ${v.fromPlan} a ${v.toPlan} el ${v.date}, tal como lo solicitó.`
      : same
        ? `Su suscripción ${v.toPlan} cambió el ${v.date}.`
        : `Su suscripción pasó de ${v.fromPlan} a ${v.toPlan} el ${v.date}.`;
    const invoice = v.invoice
      ? v.invoice.credit
        ? `El cambio le genera un saldo a favor de ${v.invoice.amount} (factura ${v.invoice.number}), que se descontará de sus próximas facturas.`
        : `El cambio se cobra en la factura ${v.invoice.number}: ${v.invoice.amount}.`
      : null;
    return {
      subject: v.scheduled ? `${v.brand}: su plan cambia el ${v.date}` : `${v.brand}: su plan ha cambiado`,
      paragraphs: [
        what,
        ...(v.quantities ? [`Cantidades: ${v.quantities}.`] : []),
        ...(invoice ? [invoice] : []),
        `Su próximo cargo: ${v.nextCharge.amount} el ${v.nextCharge.date}.`,
      ],
    };
  },
  PortalSignIn: (v) => ({
    subject: `${v.brand}: su enlace de acceso`,
    paragraphs: [
      `Este es su enlace para gestionar su cuenta en ${v.brand}. Sirve una sola vez, durante ${v.minutes} minutos.`,
      'Si no lo ha pedido, ignore este correo: nadie puede acceder sin el enlace.',
    ],
  }),
  EmailChangeConfirmation: (v) => ({
    subject: `${v.brand}: confirme su nueva dirección de correo`,
    paragraphs: [
      `Ha pedido a ${v.brand} que envíe sus correos a ${v.newEmail} a partir de ahora. Confirme que esta dirección es suya: el enlace sirve una sola vez, durante ${v.hours} horas.`,
      'Hasta que lo confirme, sus correos seguirán llegando a su dirección actual. Si no lo ha pedido, ignore este correo: no cambia nada.',
    ],
  }),
};
