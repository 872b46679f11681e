// The OAuth 2.1 authorization server for AI assistants (spec part 1, "Assistant-tool server (OAuth 2.1)").
import type { Slice } from '../shared/slice.js';

export const oauthSlice: Slice = {
  name: 'oauth',
};
