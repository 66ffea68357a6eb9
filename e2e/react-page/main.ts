// A React merchant's page: the wrapper from @renew/checkout-react, props and event callbacks.
import { createElement, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { RenewCheckout } from '@renew/checkout-react';

function Shop() {
  const [steps, setSteps] = useState<string[]>([]);
  return createElement(
    'main',
    null,
    createElement(RenewCheckout, { proxy: '/checkout', lang: 'de', coupons: 'off', onStep: (e) => setSteps((s) => [...s, e.detail.step]) }),
    createElement('p', { id: 'steps' }, steps.join(',')),
  );
}
createRoot(document.getElementById('root')!).render(createElement(Shop));
