// Why bytes are not a usable logo, apart from logo-image.ts so that the request path can recognise the refusal
// without loading what reads logos (jsdom, DOMPurify, resvg: the render pool's threads load those).

/** Why the bytes are not a usable logo (the message of the 422 on the field). */
export class NotALogo extends Error {}
