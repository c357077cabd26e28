/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * security=DIR on the dds: backend: DDS Security (Cyclone's plugins) for
 * the node's participant, from the files of DIR (docs/security.md makes
 * them with openssl):
 *
 *   ca.pem           the site's CA: identity CA and permissions CA
 *   governance.p7s   the site's governance, signed by the CA
 *   node.pem         this node's certificate, signed by the CA
 *   node.key         its private key
 *   permissions.p7s  what the certificate may do, signed by the CA: publish
 *                    only in the partitions of its node id
 *   crl.pem          optional: the CA's list of revoked certificates
 *
 * Cyclone checks the signatures, the handshake with each peer and each
 * peer's permissions; this file finds the files, has each checked first
 * (dds-security-files.c: which one is wrong, and why, where Cyclone's
 * refusal names none), and puts each node's writers in a partition of its
 * node id ("NAME.node.N") so that the permissions can bind a certificate
 * to the node ids it may use. Readers take every node's partition, and
 * the receive side refuses a sample (stream or presence) whose node id is
 * not its writer's partition's: a certificate allowed to publish as node 3
 * cannot claim node 7 or write as it from node 3's partition.
 */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backends/dds/dds-internal.h"

static const struct sec_file {
	const char *name;	/* in DIR */
	const char *prop;	/* the participant property that names it */
	const char *starts;	/* what a file of that kind holds near its start */
	const char *what;
} sec_files[] = {
	{ "ca.pem", "dds.sec.auth.identity_ca", "-----BEGIN CERTIFICATE-----",
	  "the site's CA certificate (PEM)" },
	{ "node.pem", "dds.sec.auth.identity_certificate", "-----BEGIN CERTIFICATE-----",
	  "this node's certificate (PEM)" },
	{ "node.key", "dds.sec.auth.private_key", "-----BEGIN ", "this node's private key (PEM)" },
	{ "ca.pem", "dds.sec.access.permissions_ca", "-----BEGIN CERTIFICATE-----",
	  "the site's CA certificate (PEM)" },
	{ "governance.p7s", "dds.sec.access.governance", "MIME-Version",
	  "the governance document signed by the CA (S/MIME)" },
	{ "permissions.p7s", "dds.sec.access.permissions", "MIME-Version",
	  "this node's permissions signed by the CA (S/MIME)" },
};

/* Optional: when DIR has it, Cyclone refuses peers whose certificate it lists. */
static const struct sec_file sec_crl = { "crl.pem", "org.eclipse.cyclonedds.sec.auth.crl",
					 "-----BEGIN X509 CRL-----",
					 "the CA's certificate revocation list (PEM)" };

static const struct sec_plugin {
	const char *kind;	/* dds.sec.KIND.library.* */
	const char *file;
	const char *init, *fini;
} sec_plugins[] = {
	{ "auth", "libdds_security_auth.so", "init_authentication", "finalize_authentication" },
	{ "crypto", "libdds_security_crypto.so", "init_crypto", "finalize_crypto" },
	{ "access", "libdds_security_ac.so", "init_access_control", "finalize_access_control" },
};

/*
 * The directory of Cyclone's security plugins: beside libddsc, or in
 * Debian's private directory next to it (libddsc0debian). Found from the
 * libddsc this process runs, so a Cyclone built elsewhere finds its own.
 */
static int plugin_dir(const char *uri, char *dir, size_t size)
{
	static const char *const subdirs[] = { "/libddsc0debian", "" };
	Dl_info info;

	if (!dladdr((void *)dds_create_participant, &info) || !info.dli_fname)
		return rfm__error(RFM_ENOTSUP, "%s: security: cannot find where libddsc is",
				  uri);
	const char *slash = strrchr(info.dli_fname, '/');
	int len = slash ? (int)(slash - info.dli_fname) : 1;
	const char *base = slash ? info.dli_fname : ".";

	for (size_t i = 0; i < RFM_ARRAY_SIZE(subdirs); i++) {
		char probe[4096 + 64];

		snprintf(dir, size, "%.*s%s", len, base, subdirs[i]);
		snprintf(probe, sizeof(probe), "%s/%s", dir, sec_plugins[0].file);
		if (access(probe, R_OK) == 0)
			return 0;
	}
	return rfm__error(RFM_ENOTSUP,
			  "%s: security: Cyclone DDS's security plugins (%s) are in neither "
			  "%.*s/libddsc0debian nor %.*s (Debian: package libddsc0debian)",
			  uri, sec_plugins[0].file, len, base, len, base);
}

/* @path is readable and looks like what @f names. */
static int check_file(const char *uri, const char *path, const struct sec_file *f)
{
	char head[4096];
	FILE *fp = fopen(path, "re");

	if (!fp)
		return rfm__error(errno == ENOENT ? RFM_ENOENT : RFM_EPERM,
				  "%s: security: %s (%s): %s", uri, path, f->what, strerror(errno));
	size_t n = fread(head, 1, sizeof(head) - 1, fp);
	int err = ferror(fp);

	fclose(fp);
	if (err)
		return rfm__error(RFM_EIO, "%s: security: %s: read error", uri, path);
	head[n] = '\0';
	if (!strstr(head, f->starts))
		return rfm__error(RFM_EINVAL, "%s: security: %s is not %s (no '%s' in it)", uri,
				  path, f->what, f->starts);
	return 0;
}

/* As ssh does: a private key others may read is no longer private. */
static int check_key_mode(const char *uri, const char *dir)
{
	char path[4200];
	struct stat st;

	snprintf(path, sizeof(path), "%s/node.key", dir);
	if (stat(path, &st))
		return rfm__error(RFM_EPERM, "%s: security: %s: %s", uri, path, strerror(errno));
	if (st.st_mode & 077)
		return rfm__error(RFM_EPERM,
				  "%s: security: %s is readable by others (mode %04o): chmod 600 it",
				  uri, path, (unsigned int)(st.st_mode & 07777));
	return 0;
}

int rfm__dds_security_qos(struct dds_node *d, const char *uri, dds_qos_t **qp)
{
	char dir[4096], value[4200];
	int ret;

	*qp = NULL;
	if (!d->security)
		return 0;
	if (d->id < 0)
		return rfm__error(RFM_EURI,
				  "%s: security= needs node=N: the node's permissions name its id",
				  uri);
	if (strlen(d->security) > sizeof(dir) - 64)
		return rfm__error(RFM_EURI, "%s: security= directory name too long", uri);
	for (size_t i = 0; i < RFM_ARRAY_SIZE(sec_files); i++) {
		snprintf(value, sizeof(value), "%s/%s", d->security, sec_files[i].name);
		ret = check_file(uri, value, &sec_files[i]);
		if (ret)
			return ret;
	}
	ret = check_key_mode(uri, d->security);
	if (ret)
		return ret;
	snprintf(value, sizeof(value), "%s/%s", d->security, sec_crl.name);
	bool crl = access(value, F_OK) == 0;
	if (crl && (ret = check_file(uri, value, &sec_crl)))
		return ret;
	/* What Cyclone would refuse without naming the file: said here. */
	ret = rfm__dds_security_files_check(uri, d->security, crl);
	if (ret)
		return ret;
	ret = plugin_dir(uri, dir, sizeof(dir));
	if (ret)
		return ret;

	dds_qos_t *q = dds_create_qos();
	for (size_t i = 0; i < RFM_ARRAY_SIZE(sec_plugins); i++) {
		const struct sec_plugin *p = &sec_plugins[i];
		char key[64];

		snprintf(key, sizeof(key), "dds.sec.%s.library.path", p->kind);
		snprintf(value, sizeof(value), "%s/%s", dir, p->file);
		dds_qset_prop(q, key, value);
		snprintf(key, sizeof(key), "dds.sec.%s.library.init", p->kind);
		dds_qset_prop(q, key, p->init);
		snprintf(key, sizeof(key), "dds.sec.%s.library.finalize", p->kind);
		dds_qset_prop(q, key, p->fini);
	}
	for (size_t i = 0; i < RFM_ARRAY_SIZE(sec_files); i++) {
		snprintf(value, sizeof(value), "file:%s/%s", d->security, sec_files[i].name);
		dds_qset_prop(q, sec_files[i].prop, value);
	}
	if (crl) {
		snprintf(value, sizeof(value), "file:%s/%s", d->security, sec_crl.name);
		dds_qset_prop(q, sec_crl.prop, value);
	}
	*qp = q;
	return 0;
}

int rfm__dds_security_refused(struct dds_node *d, const char *uri, dds_return_t rc, bool writer)
{
	if (writer)
		return rfm__error(RFM_EPERM,
				  "%s: security: %s/permissions.p7s does not let this certificate "
				  "publish as node %d (%s): is DIR another node's?",
				  uri, d->security, d->id, dds_strretcode(rc));
	return rfm__error(RFM_EPERM,
			  "%s: security: DDS Security refused the files of %s (%s): node.pem and "
			  "the documents must be signed by ca.pem and valid now, and node.key "
			  "must be node.pem's key (Cyclone's message on stderr says which)",
			  uri, d->security, dds_strretcode(rc));
}

void rfm__dds_security_partition(const struct dds_node *d, dds_qos_t *q, bool writer)
{
	char part[RFM_DDS_NAME_MAX + 16];
	const char *p = part;

	if (!d->security) {
		p = d->name;
	} else if (writer) {
		snprintf(part, sizeof(part), "%s.node.%d", d->name, d->id);
	} else {
		snprintf(part, sizeof(part), "%s.node.*", d->name);
	}
	dds_qset_partition(q, 1, &p);
}

void rfm__dds_to_partition(const struct dds_node *d, int id, uint32_t inc, bool writer, char *buf,
			   size_t len)
{
	char to[32], node[24] = "";

	/* ':' is no network name's: no other network reads these. */
	if (inc)
		snprintf(to, sizeof(to), "inc:%08x", (unsigned int)inc);
	else if (id < 0)
		snprintf(to, sizeof(to), "obs");
	else
		snprintf(to, sizeof(to), "%d", id);
	if (d->security && writer)
		snprintf(node, sizeof(node), ".node.%d", d->id);
	else if (d->security)
		snprintf(node, sizeof(node), ".node.*");
	snprintf(buf, len, "%s:to:%s%s", d->name, to, node);
}

void rfm__dds_stream_reader_partitions(const struct dds_node *d, dds_qos_t *q)
{
	char base[RFM_DDS_NAME_MAX + 16], any[RFM_DDS_PARTITION_MAX + 1],
		mine[RFM_DDS_PARTITION_MAX + 1];
	const char *parts[3];

	snprintf(base, sizeof(base), d->security ? "%s.node.*" : "%s", d->name);
	/* Ours by this incarnation (a writer routing around a down node that
	 * held our id before names it), and by node id when node= gave it (a
	 * joiner's incarnation it may not know yet; without node= the id is
	 * chosen later, and the incarnation alone names us). */
	rfm__dds_to_partition(d, d->id, d->inc, false, mine, sizeof(mine));
	rfm__dds_to_partition(d, d->id, 0, false, any, sizeof(any));
	parts[0] = base;
	parts[1] = mine;
	parts[2] = any;
	dds_qset_partition(q, d->id < 0 ? 2 : 3, parts);
}

int rfm__dds_partition_node(const struct dds_node *d, const char *partition)
{
	size_t len = strlen(d->name);
	const char *p = partition + len;
	char *end;

	if (strncmp(partition, d->name, len))
		return -1;
	/* "NAME:to:WHOM.node.N" (dds-route.c) names node N as "NAME.node.N" does. */
	if (!strncmp(p, ":to:", 4)) {
		p += 4;
		if (!*p || *p == '.')
			return -1;
		while (*p && *p != '.')
			p++;
	}
	if (strncmp(p, ".node.", 6))
		return -1;
	const char *digits = p + 6;

	if (*digits < '0' || *digits > '9' || (digits[0] == '0' && digits[1]))
		return -1;
	errno = 0;
	unsigned long id = strtoul(digits, &end, 10);

	if (errno || *end || id >= RFM_MAX_NODES)
		return -1;
	return (int)id;
}

bool rfm__dds_security_writer_ok(const struct dds_node *d, const struct dds_writer_id *w,
				 unsigned int id)
{
	/* Every partition of the writer names node @id (dds-identity.c):
	 * node N's permissions let it publish in *.node.N only. */
	return !d->security || w->node == (int)id;
}
