// The invitations slice: inviting people to a workspace by e-mail, and accepting (issue 13).
import type { Slice } from '../shared/slice.js';

export const invitationsSlice: Slice = {
  name: 'invitations',
};
