// Imported first by tests that run provider calls in their own process: the SSRF guard of outbound requests reads
// WEBHOOKS_ALLOWED_CIDRS once, when its module loads, and the test providers listen on loopback.
process.env.WEBHOOKS_ALLOWED_CIDRS = '127.0.0.0/8';
