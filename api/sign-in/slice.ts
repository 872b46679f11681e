// Signing in at the service in a browser (e-mail link, or the external identity provider), for the consent page.
import type { Slice } from '../shared/slice.js';

export const signInSlice: Slice = {
  name: 'sign-in',
};
