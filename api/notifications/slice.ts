// The notifications slice: in-app notifications derived from events, preferences and notification e-mail (issue 13).
import type { Slice } from '../shared/slice.js';

export const notificationsSlice: Slice = {
  name: 'notifications',
};
