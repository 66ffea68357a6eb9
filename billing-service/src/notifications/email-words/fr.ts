import type { EmailWords } from './words.js';

// French typography: a narrow no-break space before « : ; ! ? ».
const nb = '\u202f';
const ref = (reference: string | null) => (reference ? ` (${reference})` : '');

export const fr: EmailWords = {
  hello: (name) => (name ? `Bonjour ${name},` : 'Bonjour,'),
  footer: (brand) => `Vous recevez ce courriel parce que vous êtes client de ${brand}.`,
  buttons: {
    paymentMethodUpdate: 'Mettre à jour ma carte',
    payInvoices: 'Payer maintenant',
    invoices: 'Voir mes factures',
    authenticatePayment: 'Confirmer mon paiement',
  },
  signInButton: 'Accéder à mon compte',
  confirmEmailButton: 'Confirmer cette adresse',
  linkLine: (label, url) => `${label}${nb}: ${url}`,
  invoiceTable: { subtotal: 'Sous-total', discount: 'Remise', total: 'Total' },
  refundWays: {
    CreditCard: 'sur votre carte',
    Cash: 'en espèces',
    Check: 'par chèque',
    DirectDeposit: 'par virement',
    ACH: 'par virement ACH',
    other: 'selon les modalités convenues avec vous',
  },
  declines: {
    insufficient_funds: 'provision insuffisante sur la carte',
    expired_card: 'la carte est expirée',
    incorrect_cvc: 'le code de sécurité est refusé',
    other: 'la carte est refusée',
  },
  unknownCardBrand: 'bancaire',
  InvoicePost: (v) => ({
    subject: `${v.brand}${nb}: facture ${v.number} de ${v.amount}`,
    paragraphs: [
      `La facture ${v.number} de ${v.amount} vient d’être émise${nb}; elle est à régler au plus tard le ${v.dueDate}.`,
      'Vous la trouverez en pièce jointe (PDF).',
    ],
  }),
  PaymentReceived: (v) => ({
    subject: `${v.brand}${nb}: paiement de ${v.amount} reçu`,
    paragraphs: [`Nous avons bien reçu votre paiement de ${v.amount}${ref(v.reference)}. Merci${nb}!`],
  }),
  AuthenticationRequired: (v) => ({
    subject: `${v.brand} : confirmez votre paiement de ${v.amount}`,
    paragraphs: [
      `Votre banque vous demande de confirmer votre paiement de ${v.amount} avant qu’il soit effectué (3-D Secure).`,
      'Rien n’a encore été prélevé. Ouvrez le lien, puis confirmez le paiement sur la page de votre banque.',
    ],
  }),
  PaymentFailed: (v) => ({
    subject: `${v.brand}${nb}: échec de votre paiement de ${v.amount}`,
    paragraphs: [
      `Nous n’avons pas pu encaisser votre paiement de ${v.amount}${nb}: ${v.reason}.`,
      'Veuillez mettre à jour votre moyen de paiement afin de conserver votre abonnement.',
    ],
  }),
  Refund: (v) => ({
    subject: `${v.brand}${nb}: remboursement de ${v.amount}`,
    paragraphs: [
      `Nous vous avons remboursé ${v.amount} sur votre paiement de ${v.paymentAmount} du ${v.paymentDate}, ${v.way}${ref(v.reference)}.`,
    ],
  }),
  InvoiceOverdue: (v) => ({
    subject: `${v.brand}${nb}: la facture ${v.number} est en retard`,
    paragraphs: [
      `La facture ${v.number} était à régler le ${v.dueDate}${nb}; ${v.outstanding} reste impayé. Merci de la régler pour conserver votre abonnement.`,
    ],
  }),
  SubscriptionCancellation: (v) => ({
    subject: v.count === 1 ? `${v.brand}${nb}: votre abonnement est résilié` : `${v.brand}${nb}: vos abonnements sont résiliés`,
    paragraphs: [
      v.count === 1 ? `Votre abonnement ${v.subscriptions} est résilié.` : `Ces abonnements sont résiliés${nb}: ${v.subscriptions}.`,
    ],
  }),
  CreditCardExpiry: (v) => ({
    subject: `${v.brand}${nb}: votre carte se terminant par ${v.lastFour} expire bientôt`,
    paragraphs: [
      `Votre carte ${v.cardBrand} se terminant par ${v.lastFour} expire à la fin de ${v.expiry}.`,
      'Ajoutez une nouvelle carte pour que vos paiements continuent.',
    ],
  }),
  CustomerActivation: (v) => ({
    subject: `${v.brand}${nb}: votre compte est actif`,
    paragraphs: [`Votre compte et vos abonnements sont actifs. Bienvenue${nb}!`],
  }),
  CustomerSuspend: (v) => ({
    subject: `${v.brand}${nb}: votre compte est suspendu`,
    paragraphs: [
      `Votre compte est suspendu${nb}: une facture est restée impayée ${v.overdueDays} jours après son échéance.`,
      'Il sera rétabli dès le règlement du solde en retard.',
    ],
  }),
  CreditNote: (v) => ({
    subject: `${v.brand}${nb}: avoir ${v.number} sur la facture ${v.invoiceNumber}`,
    paragraphs: [
      `Nous avons émis l'avoir ${v.number} de ${v.total} sur la facture ${v.invoiceNumber}.`,
      ...(v.applied ? [`${v.applied} vient en déduction de la facture.`] : []),
      ...(v.credited ? [`${v.credited} est porté au crédit de votre compte et réglera vos prochaines factures.`] : []),
      ...(v.refunded ? [`${v.refunded} vous est remboursé sur votre moyen de paiement.`] : []),
    ],
  }),
  UsageThresholdReached: (v) => ({
    subject: `${v.brand}${nb}: votre consommation ${v.metric} a atteint ${v.threshold}`,
    paragraphs: [
      `Votre consommation ${v.metric} depuis le ${v.periodStart} atteint ${v.quantity}, au-delà du seuil de ${v.threshold} fixé sur votre abonnement.`,
      'Elle sera facturée sur votre prochaine facture.',
    ],
  }),
  frequency: (interval, count) =>
    interval === 'Monthly' ? (count === 1 ? 'mensuel' : `tous les ${count} mois`) : count === 1 ? 'annuel' : `tous les ${count} ans`,
  quantityChange: (product, from, to) => `${product}${nb}: ${from} → ${to}`,
  SubscriptionChange: (v) => {
    const same = v.fromPlan === v.toPlan;
    const what = v.scheduled
      ? same
        ? `Votre abonnement ${v.toPlan} changera le ${v.date}, comme vous l’avez demandé.`
        : `Votre abonnement passera de ${v.fromPlan} à ${v.toPlan} le ${v.date}, comme vous l’avez demandé.`
      : same
        ? `Votre abonnement ${v.toPlan} a changé le ${v.date}.`
        : `Votre abonnement est passé de ${v.fromPlan} à ${v.toPlan} le ${v.date}.`;
    const invoice = v.invoice
      ? v.invoice.credit
        ? `Ce changement vous donne un avoir de ${v.invoice.amount} (facture ${v.invoice.number}), déduit de vos prochaines factures.`
        : `Ce changement est facturé sur la facture ${v.invoice.number}${nb}: ${v.invoice.amount}.`
      : null;
    return {
      subject: v.scheduled ? `${v.brand}${nb}: votre formule change le ${v.date}` : `${v.brand}${nb}: votre formule a changé`,
      paragraphs: [
        what,
        ...(v.quantities ? [`Quantités${nb}: ${v.quantities}.`] : []),
        ...(invoice ? [invoice] : []),
        `Votre prochain prélèvement${nb}: ${v.nextCharge.amount} le ${v.nextCharge.date}.`,
      ],
    };
  },
  PortalSignIn: (v) => ({
    subject: `${v.brand}${nb}: votre lien de connexion`,
    paragraphs: [
      `Voici votre lien pour gérer votre compte chez ${v.brand}. Il sert une seule fois, dans les ${v.minutes} minutes.`,
      `Si vous ne l’avez pas demandé, ignorez ce courriel${nb}: personne ne peut se connecter sans ce lien.`,
    ],
  }),
  EmailChangeConfirmation: (v) => ({
    subject: `${v.brand}${nb}: confirmez votre nouvelle adresse e-mail`,
    paragraphs: [
      `Vous avez demandé à ${v.brand} d’envoyer désormais vos courriels à ${v.newEmail}. Confirmez que cette adresse est la vôtre${nb}: le lien sert une seule fois, dans les ${v.hours}${nb}heures.`,
      `Tant que vous n’avez pas confirmé, vos courriels continuent d’arriver à votre adresse actuelle. Si vous n’avez rien demandé, ignorez ce courriel${nb}: rien ne change.`,
    ],
  }),
};
