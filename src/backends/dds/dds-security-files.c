/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * security=DIR's files checked before Cyclone sees them, with OpenSSL's
 * libcrypto (which Cyclone's security plugins use too), so that a file
 * that is wrong is named, with why. Cyclone's own refusal names nothing
 * ("Error", after a message on stderr that says "self-signed certificate"
 * of a document signed by another CA). In the order a site makes them:
 *
 *   ca.pem           a certificate, valid now
 *   node.pem         a certificate, valid now, issued by ca.pem (and not
 *                    revoked by crl.pem when there is one)
 *   node.key         a private key (PEM, not encrypted): node.pem's
 *   governance.p7s   S/MIME, signed by a certificate ca.pem issued,
 *                    unchanged since
 *   permissions.p7s  the same, and a grant for node.pem's subject that is
 *                    valid now
 *   crl.pem          (when present) signed by ca.pem, before its next update
 *
 * Only what is certain is refused: a document whose XML this file does not
 * follow (no grant it can find, a date it cannot read) is left to
 * Cyclone, which decides as before.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/pkcs7.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>

#include "backends/dds/dds-internal.h"

/* The largest file read: certificates and documents are a few KiB. */
#define FILE_MAX (1u << 20)

struct files {
	const char *uri, *dir;
	X509 *ca, *node;
	X509_CRL *crl;
	X509_STORE *store;	/* ca.pem (and crl.pem) */
};

/* An error about DIR/@name, @code: "URI: security: DIR/NAME WHY". */
__attribute__((format(printf, 4, 5)))
static int file_error(const struct files *f, int code, const char *name, const char *fmt, ...)
{
	char why[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	ERR_clear_error();
	return rfm__error(code, "%s: security: %s/%s %s", f->uri, f->dir, name, why);
}

/* OpenSSL's reason for the last failure, for a message. */
static const char *openssl_reason(void)
{
	unsigned long e = ERR_peek_last_error();
	const char *r = e ? ERR_reason_error_string(e) : NULL;

	return r ? r : "no reason given";
}

/* DIR/@name in memory (a BIO over it, the text NUL-terminated in *@text). */
static int read_file(const struct files *f, const char *name, char **text, BIO **bio)
{
	char path[4200];
	size_t len = 0;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", f->dir, name);
	fp = fopen(path, "re");
	*text = malloc(FILE_MAX + 1);
	if (!fp || !*text) {
		int err = errno;

		if (fp)
			fclose(fp);
		free(*text);
		*text = NULL;
		return fp ? rfm__error(RFM_ENOMEM, "%s: out of memory", f->uri)
			  : file_error(f, err == ENOENT ? RFM_ENOENT : RFM_EPERM, name, ": %s",
				       strerror(err));
	}
	len = fread(*text, 1, FILE_MAX + 1, fp);
	int failed = ferror(fp);
	fclose(fp);
	if (failed || len > FILE_MAX) {
		free(*text);
		*text = NULL;
		return file_error(f, failed ? RFM_EIO : RFM_EINVAL, name,
				  failed ? "could not be read" : "is larger than %u bytes", FILE_MAX);
	}
	(*text)[len] = '\0';
	*bio = BIO_new_mem_buf(*text, (int)len);
	if (!*bio) {
		free(*text);
		*text = NULL;
		return rfm__error(RFM_ENOMEM, "%s: out of memory", f->uri);
	}
	return 0;
}

/* @t as "2031-12-24 10:00:00 UTC". */
static void time_text(const ASN1_TIME *t, char *buf, size_t len)
{
	struct tm tm;

	if (!t || !ASN1_TIME_to_tm(t, &tm) || !strftime(buf, len, "%Y-%m-%d %H:%M:%S UTC", &tm))
		snprintf(buf, len, "(a time OpenSSL cannot read)");
}

/* @x's subject (or issuer) as "CN=...,O=..." (RFC 2253), into @buf. */
static void name_text(const X509_NAME *n, char *buf, size_t len)
{
	BIO *b = BIO_new(BIO_s_mem());
	char *p = NULL;
	long got = 0;

	buf[0] = '\0';
	if (!b)
		return;
	if (X509_NAME_print_ex(b, n, 0, XN_FLAG_RFC2253) >= 0)
		got = BIO_get_mem_data(b, &p);
	snprintf(buf, len, "%.*s", (int)(got > 0 ? got : 0), p ? p : "");
	BIO_free(b);
}

/* A certificate's dates against now. */
static int check_dates(const struct files *f, const X509 *x, const char *name)
{
	char when[64];

	if (X509_cmp_current_time(X509_get0_notBefore(x)) > 0) {
		time_text(X509_get0_notBefore(x), when, sizeof(when));
		return file_error(f, RFM_EPERM, name, "is not valid before %s (is the clock right?)",
				  when);
	}
	if (X509_cmp_current_time(X509_get0_notAfter(x)) < 0) {
		time_text(X509_get0_notAfter(x), when, sizeof(when));
		return file_error(f, RFM_EPERM, name, "expired on %s: make a new one "
				  "(docs/security.md)", when);
	}
	return 0;
}

static int load_cert(const struct files *f, const char *name, X509 **x)
{
	char *text;
	BIO *bio;
	int ret = read_file(f, name, &text, &bio);

	if (ret)
		return ret;
	*x = PEM_read_bio_X509(bio, NULL, NULL, NULL);
	BIO_free(bio);
	free(text);
	if (!*x)
		return file_error(f, RFM_EINVAL, name, "is not a PEM certificate OpenSSL can read "
				  "(%s)", openssl_reason());
	return check_dates(f, *x, name);
}

/* Why @x does not chain to ca.pem, as words for "@name ...". */
static int chain_error(const struct files *f, int err, const X509 *x, const char *name,
		       const char *whose)
{
	char issuer[256], ca[256], when[64];

	switch (err) {
	case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY:
	case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT:
	case X509_V_ERR_CERT_SIGNATURE_FAILURE:
	case X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT:
	case X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN:
	case X509_V_ERR_UNABLE_TO_DECRYPT_CERT_SIGNATURE:
		name_text(X509_get_issuer_name(x), issuer, sizeof(issuer));
		name_text(X509_get_subject_name(f->ca), ca, sizeof(ca));
		/* The docs' commands give every site's CA one name: say so. */
		if (!X509_NAME_cmp(X509_get_issuer_name(x), X509_get_subject_name(f->ca)))
			return file_error(f, RFM_EPERM, name,
					  "is not signed by ca.pem: %s certificate names ca.pem's "
					  "subject (\"%s\") as its issuer, but ca.pem's key did not "
					  "sign it (another CA of the same name?)",
					  whose, ca);
		return file_error(f, RFM_EPERM, name,
				  "is not signed by ca.pem: %s certificate was issued by \"%s\", "
				  "ca.pem is \"%s\" (another site's CA?)",
				  whose, issuer, ca);
	case X509_V_ERR_CERT_REVOKED:
		return file_error(f, RFM_EPERM, name, "is revoked: crl.pem lists %s certificate",
				  whose);
	case X509_V_ERR_CRL_HAS_EXPIRED:
		time_text(X509_CRL_get0_nextUpdate(f->crl), when, sizeof(when));
		return file_error(f, RFM_EPERM, "crl.pem",
				  "expired on %s (its next update): make a new one with the "
				  "-gencrl command of docs/security.md", when);
	case X509_V_ERR_CRL_NOT_YET_VALID:
		time_text(X509_CRL_get0_lastUpdate(f->crl), when, sizeof(when));
		return file_error(f, RFM_EPERM, "crl.pem", "is not valid before %s", when);
	case X509_V_ERR_UNABLE_TO_GET_CRL_ISSUER:
	case X509_V_ERR_CRL_SIGNATURE_FAILURE:
	case X509_V_ERR_UNABLE_TO_DECRYPT_CRL_SIGNATURE:
		return file_error(f, RFM_EPERM, "crl.pem", "is not signed by ca.pem (another "
				  "CA's list?)");
	case X509_V_ERR_CERT_HAS_EXPIRED:
		time_text(X509_get0_notAfter(x), when, sizeof(when));
		return file_error(f, RFM_EPERM, name, "is signed by a certificate that expired "
				  "on %s", when);
	default:
		return file_error(f, RFM_EPERM, name, "does not chain to ca.pem: %s",
				  X509_verify_cert_error_string(err));
	}
}

/* Does @x chain to ca.pem (and, with a crl.pem, is it not revoked)? */
static int check_chain(const struct files *f, X509 *x, STACK_OF(X509) *untrusted,
		       const char *name, const char *whose)
{
	X509_STORE_CTX *ctx = X509_STORE_CTX_new();
	int ret = 0;

	if (!ctx || !X509_STORE_CTX_init(ctx, f->store, x, untrusted))
		ret = rfm__error(RFM_ENOMEM, "%s: out of memory", f->uri);
	else if (X509_verify_cert(ctx) != 1)
		ret = chain_error(f, X509_STORE_CTX_get_error(ctx), x, name, whose);
	X509_STORE_CTX_free(ctx);
	return ret;
}

static int no_password(char *buf, int size, int rwflag, void *u)
{
	(void)buf;
	(void)size;
	(void)rwflag;
	(void)u;
	return -1; /* an encrypted key: Cyclone could not open it either */
}

static int check_key(const struct files *f)
{
	char *text;
	BIO *bio;
	int ret = read_file(f, "node.key", &text, &bio);

	if (ret)
		return ret;
	EVP_PKEY *key = PEM_read_bio_PrivateKey(bio, NULL, no_password, NULL);
	BIO_free(bio);
	free(text);
	if (!key)
		return file_error(f, RFM_EINVAL, "node.key",
				  "is not a private key OpenSSL can read without a password "
				  "(PEM, not encrypted: %s)", openssl_reason());
	int match = X509_check_private_key(f->node, key);
	EVP_PKEY_free(key);
	if (match != 1)
		return file_error(f, RFM_EPERM, "node.key",
				  "is not node.pem's key (the two come from different nodes?)");
	return 0;
}

/* Did the last verification fail on the signature or digest itself (the
 * content or the signature changed), not on the document's form? */
static bool signature_mismatch(void)
{
	unsigned long e;
	bool mismatch = false;

	while ((e = ERR_get_error()) != 0)
		if (ERR_GET_LIB(e) == ERR_LIB_PKCS7 &&
		    (ERR_GET_REASON(e) == PKCS7_R_DIGEST_FAILURE ||
		     ERR_GET_REASON(e) == PKCS7_R_SIGNATURE_FAILURE))
			mismatch = true;
	return mismatch;
}

/*
 * An S/MIME document signed by a certificate ca.pem issued, unchanged
 * since it was signed; its text into *@doc (the caller frees it).
 */
static int check_document(const struct files *f, const char *name, char **doc)
{
	char *text, subject[256];
	BIO *bio, *content = NULL, *out = NULL;
	int ret = read_file(f, name, &text, &bio);

	*doc = NULL;
	if (ret)
		return ret;
	PKCS7 *p7 = SMIME_read_PKCS7(bio, &content);
	STACK_OF(X509) *signers = p7 && PKCS7_type_is_signed(p7) ? PKCS7_get0_signers(p7, NULL, 0)
								 : NULL;

	if (!p7 || !PKCS7_type_is_signed(p7)) {
		ret = file_error(f, RFM_EINVAL, name, "is not an S/MIME signed document (%s)",
				 p7 ? "not signed" : openssl_reason());
	} else if (!signers || sk_X509_num(signers) < 1) {
		ret = file_error(f, RFM_EPERM, name, "carries no signer's certificate: sign it as "
				 "docs/security.md does (openssl smime -sign -signer ca.pem)");
	} else {
		X509 *signer = sk_X509_value(signers, 0);

		ret = check_dates(f, signer, name);
		if (!ret)
			ret = check_chain(f, signer, p7->d.sign->cert, name, "its signer's");
		name_text(X509_get_subject_name(signer), subject, sizeof(subject));
	}
	/* The signer known good: does the signature match the content? */
	if (!ret && !(out = BIO_new(BIO_s_mem())))
		ret = rfm__error(RFM_ENOMEM, "%s: out of memory", f->uri);
	if (!ret && PKCS7_verify(p7, NULL, f->store, content, out, PKCS7_TEXT | PKCS7_NOVERIFY) != 1)
		ret = signature_mismatch()
			      ? file_error(f, RFM_EPERM, name,
					   "was changed after \"%s\" signed it: its signature does "
					   "not match its content", subject)
			      : file_error(f, RFM_EPERM, name,
					   "cannot be verified (%s): sign it as docs/security.md "
					   "does (openssl smime -sign -text)", openssl_reason());
	if (!ret) {
		char *p = NULL;
		long len = BIO_get_mem_data(out, &p);

		*doc = malloc((size_t)(len > 0 ? len : 0) + 1);
		if (!*doc) {
			ret = rfm__error(RFM_ENOMEM, "%s: out of memory", f->uri);
		} else {
			memcpy(*doc, p, (size_t)(len > 0 ? len : 0));
			(*doc)[len > 0 ? len : 0] = '\0';
		}
	}
	sk_X509_free(signers);
	BIO_free(out);
	BIO_free(content);
	PKCS7_free(p7);
	BIO_free(bio);
	free(text);
	return ret;
}

static int load_crl(struct files *f)
{
	char *text;
	BIO *bio;
	int ret = read_file(f, "crl.pem", &text, &bio);

	if (ret)
		return ret;
	f->crl = PEM_read_bio_X509_CRL(bio, NULL, NULL, NULL);
	BIO_free(bio);
	free(text);
	if (!f->crl)
		return file_error(f, RFM_EINVAL, "crl.pem", "is not a PEM certificate revocation "
				  "list OpenSSL can read (%s)", openssl_reason());
	if (!X509_STORE_add_crl(f->store, f->crl))
		return rfm__error(RFM_ENOMEM, "%s: out of memory", f->uri);
	X509_STORE_set_flags(f->store, X509_V_FLAG_CRL_CHECK);
	return 0;
}

static void files_free(struct files *f)
{
	X509_free(f->ca);
	X509_free(f->node);
	X509_CRL_free(f->crl);
	X509_STORE_free(f->store);
}

int rfm__dds_security_files_check(const char *uri, const char *dir, bool crl)
{
	struct files f = { .uri = uri, .dir = dir };
	char *governance = NULL, *permissions = NULL, subject[256];
	int ret = load_cert(&f, "ca.pem", &f.ca);

	if (!ret && (!(f.store = X509_STORE_new()) || !X509_STORE_add_cert(f.store, f.ca)))
		ret = rfm__error(RFM_ENOMEM, "%s: out of memory", uri);
	if (!ret && crl)
		ret = load_crl(&f);
	if (!ret)
		ret = load_cert(&f, "node.pem", &f.node);
	if (!ret)
		ret = check_chain(&f, f.node, NULL, "node.pem", "its");
	if (!ret)
		ret = check_key(&f);
	if (!ret)
		ret = check_document(&f, "governance.p7s", &governance);
	if (!ret)
		ret = check_document(&f, "permissions.p7s", &permissions);
	if (!ret) {
		name_text(X509_get_subject_name(f.node), subject, sizeof(subject));
		ret = rfm__dds_permissions_check(uri, dir, permissions, subject);
	}
	free(governance);
	free(permissions);
	files_free(&f);
	ERR_clear_error();
	return ret;
}
