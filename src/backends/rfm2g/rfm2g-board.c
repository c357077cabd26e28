/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The board controls of the rfm2g: backend (board.h): the vendor driver's
 * ioctls on the descriptor the backend opened for the node, with the
 * driver's argument conventions (a flag or a value set is passed by
 * value, a read fills a pointer; the DMA threshold alone goes by pointer).
 * librfm2g calls these instead of opening the card a second time.
 */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include "backends/rfm2g/rfm2g-internal.h"

/* The driver ignores the file offset of a special map; the vendor library passes a page. */
#define R2G_SPECIAL_MAP_PAGE 4096

/* The driver's errno as librfm's code and message; here, at the bottom of
 * the backend, as rfm2g.c and the board controls both report with it. */
int rfm__r2g_errno(int err, const char *what, const char *path)
{
	switch (err) {
	case ENOENT:
	case ENODEV:
	case ENXIO:
		return rfm__error(RFM_ENOENT, "%s: %s: no such RFM2g device", path, what);
	case EACCES:
	case EPERM:
		return rfm__error(RFM_EPERM, "%s: %s: permission denied", path, what);
	case ENOMEM:
		return rfm__error(RFM_ENOMEM, "%s: %s: out of memory", path, what);
	case EINVAL:
		return rfm__error(RFM_EINVAL, "%s: %s: the driver refused the argument", path, what);
	default:
		return rfm__error(RFM_EIO, "%s: %s: %s", path, what, strerror(err));
	}
}

static const char *where(const struct rfm_node *node)
{
	const struct r2g_node *r = node->priv;

	return r->path;
}

static int driver_call(struct rfm_node *node, unsigned long request, void *arg, const char *what)
{
	struct r2g_node *r = node->priv;

	if (ioctl(r->fd, request, arg) != 0)
		return rfm__r2g_errno(errno, what, where(node));
	return 0;
}

static int driver_call_value(struct rfm_node *node, unsigned long request, unsigned long value,
			     const char *what)
{
	struct r2g_node *r = node->priv;

	if (ioctl(r->fd, request, value) != 0)
		return rfm__r2g_errno(errno, what, where(node));
	return 0;
}

static int r2g_board_descriptor(const struct rfm_node *node)
{
	const struct r2g_node *r = node->priv;

	return r->fd;
}

static int r2g_board_get_config(struct rfm_node *node, RFM2GCONFIG *cfg)
{
	return driver_call(node, IOCTL_RFM2G_GET_CONFIG, cfg, "GET_CONFIG");
}

struct r2g_flag_requests {
	unsigned long get, set;
	const char *name;
};

static const struct r2g_flag_requests flag_requests[RFM__BOARD_NFLAGS] = {
	[RFM__BOARD_LED] = { IOCTL_RFM2G_GET_LED, IOCTL_RFM2G_SET_LED, "LED" },
	[RFM__BOARD_DARK_ON_DARK] = { IOCTL_RFM2G_GET_DARK_ON_DARK, IOCTL_RFM2G_SET_DARK_ON_DARK,
				      "DARK_ON_DARK" },
	[RFM__BOARD_TX_DISABLE] = { IOCTL_RFM2G_GET_TRANSMIT_DISABLE,
				    IOCTL_RFM2G_SET_TRANSMIT_DISABLE, "TRANSMIT_DISABLE" },
	[RFM__BOARD_LOOPBACK] = { IOCTL_RFM2G_GET_LOOPBACK, IOCTL_RFM2G_SET_LOOPBACK,
				  "LOOPBACK" },
	[RFM__BOARD_PARITY] = { IOCTL_RFM2G_GET_PARITY_ENABLE, IOCTL_RFM2G_SET_PARITY_ENABLE,
				"PARITY_ENABLE" },
	[RFM__BOARD_DMA_SWAP] = { IOCTL_RFM2G_GET_DMA_BYTESWAP, IOCTL_RFM2G_SET_DMA_BYTE_SWAP,
				  "DMA_BYTE_SWAP" },
	[RFM__BOARD_PIO_SWAP] = { IOCTL_RFM2G_GET_PIO_BYTESWAP, IOCTL_RFM2G_SET_PIO_BYTE_SWAP,
				  "PIO_BYTE_SWAP" },
};

static int r2g_board_get_flag(struct rfm_node *node, enum rfm_board_flag flag, bool *on)
{
	RFM2G_UINT8 v = 0;	/* the driver answers these in 8 bits */
	int err;

	if ((unsigned int) flag >= RFM__BOARD_NFLAGS)
		return rfm__error(RFM_EINVAL, "rfm2g: no board flag %u", (unsigned int) flag);
	err = driver_call(node, flag_requests[flag].get, &v, flag_requests[flag].name);
	if (!err)
		*on = v != 0;
	return err;
}

static int r2g_board_set_flag(struct rfm_node *node, enum rfm_board_flag flag, bool on)
{
	if ((unsigned int) flag >= RFM__BOARD_NFLAGS)
		return rfm__error(RFM_EINVAL, "rfm2g: no board flag %u", (unsigned int) flag);
	return driver_call_value(node, flag_requests[flag].set, on, flag_requests[flag].name);
}

struct r2g_value_requests {
	unsigned long get, set;	/* 0: the driver has no such call */
	bool set_by_pointer;
	const char *name;
};

static const struct r2g_value_requests value_requests[RFM__BOARD_NVALUES] = {
	[RFM__BOARD_MEMORY_OFFSET] = { IOCTL_RFM2G_GET_MEMORY_OFFSET,
				       IOCTL_RFM2G_SET_MEMORY_OFFSET, false, "MEMORY_OFFSET" },
	[RFM__BOARD_DEBUG_FLAGS] = { IOCTL_RFM2G_GET_DEBUG_FLAGS, IOCTL_RFM2G_SET_DEBUG_FLAGS,
				     false, "DEBUG_FLAGS" },
	[RFM__BOARD_DMA_THRESHOLD] = { 0, IOCTL_RFM2G_SET_DMA_THRESHOLD, true, "DMA_THRESHOLD" },
	[RFM__BOARD_WINDOW_OFFSET] = { 0, IOCTL_RFM2G_SET_SLIDING_WINDOW_OFFSET, false,
				       "SLIDING_WINDOW_OFFSET" },
};

static int r2g_board_get_value(struct rfm_node *node, enum rfm_board_value what,
			       uint32_t *value)
{
	RFM2G_UINT32 v = 0;
	int err;

	if ((unsigned int) what >= RFM__BOARD_NVALUES || !value_requests[what].get)
		return rfm__error(RFM_ENOTSUP, "rfm2g: board value %u cannot be read",
				  (unsigned int) what);
	err = driver_call(node, value_requests[what].get, &v, value_requests[what].name);
	if (!err)
		*value = v;
	return err;
}

static int r2g_board_set_value(struct rfm_node *node, enum rfm_board_value what,
			       uint32_t value)
{
	RFM2G_UINT32 v = value;

	if ((unsigned int) what >= RFM__BOARD_NVALUES)
		return rfm__error(RFM_ENOTSUP, "rfm2g: no board value %u", (unsigned int) what);
	if (value_requests[what].set_by_pointer)
		return driver_call(node, value_requests[what].set, &v, value_requests[what].name);
	return driver_call_value(node, value_requests[what].set, value,
				 value_requests[what].name);
}

static int r2g_board_ring_test(struct rfm_node *node)
{
	return driver_call(node, IOCTL_RFM2G_CHECK_RING_CONT, NULL, "CHECK_RING_CONT");
}

static int r2g_board_clear_own_data(struct rfm_node *node, bool *was_set)
{
	RFM2G_UINT8 v = 0;
	int err = driver_call(node, IOCTL_RFM2G_CLEAR_OWN_DATA, &v, "CLEAR_OWN_DATA");

	if (!err)
		*was_set = v != 0;
	return err;
}

static int r2g_board_reg(struct rfm_node *node, enum rfm_board_reg_op op, unsigned int regset,
			 uint32_t offset, uint32_t width, uint32_t *value)
{
	RFM2GLINUXREGINFO ri = {
		.regset = (RFM2GREGSETTYPE) regset,
		.Offset = offset,
		.Width = width,
		.Value = op == RFM__BOARD_REG_READ ? 0 : *value,
	};
	int err;

	switch (op) {
	case RFM__BOARD_REG_READ:
		err = driver_call(node, IOCTL_RFM2G_READ_REG, &ri, "READ_REG");
		if (!err)
			*value = ri.Value;
		return err;
	case RFM__BOARD_REG_WRITE:
		return driver_call(node, IOCTL_RFM2G_WRITE_REG, &ri, "WRITE_REG");
	case RFM__BOARD_REG_SET:
		return driver_call(node, IOCTL_RFM2G_SET_REG, &ri, "SET_REG");
	case RFM__BOARD_REG_CLEAR:
		return driver_call(node, IOCTL_RFM2G_CLEAR_REG, &ri, "CLEAR_REG");
	}
	return rfm__error(RFM_EINVAL, "rfm2g: no register operation %u", (unsigned int) op);
}

int rfm__r2g_map_special(int fd, uint64_t special, size_t len, void **addr, const char **what)
{
	RFM2G_UINT64 arg = special;	/* the driver takes it by pointer */
	void *p;

	*what = "SET_SPECIAL_MMAP_OFFSET";
	if (ioctl(fd, IOCTL_RFM2G_SET_SPECIAL_MMAP_OFFSET, &arg) != 0)
		return errno;
	*what = "mmap of a special region";
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, R2G_SPECIAL_MAP_PAGE);
	if (p == MAP_FAILED)
		return errno;
	*addr = p;
	return 0;
}

/* The driver knows the descriptor's DMA buffer by the low 32 bits of its address. */
int rfm__r2g_unarm_dma(int fd, void *addr)
{
	if (ioctl(fd, IOCTL_RFM2G_CLEAR_DMA_MMAP_OFFSET,
		  (unsigned long) (uint32_t) (uintptr_t) addr) != 0)
		return errno;
	return 0;
}

int rfm__r2g_transfer(int fd, bool to_window, uint32_t offset, void *buf, uint32_t len)
{
	RFM2GTRANSFER t = { .Offset = offset, .Length = len, .Buffer = buf };

	if (ioctl(fd, to_window ? IOCTL_RFM2G_WRITE : IOCTL_RFM2G_READ, &t) != 0)
		return errno;
	return 0;
}

/* A failed ioctl is the driver's error; a failed mmap is RFM_ESYS (errno kept). */
static int r2g_board_map_special(struct rfm_node *node, uint64_t offset, size_t len,
				 void **addr)
{
	struct r2g_node *r = node->priv;
	const char *what;
	int err = rfm__r2g_map_special(r->fd, offset, len, addr, &what);

	if (err == 0)
		return 0;
	if (*what == 'm') {
		errno = err;
		return rfm__error(RFM_ESYS, "%s: %s: %s", where(node), what, strerror(err));
	}
	return rfm__r2g_errno(err, what, where(node));
}

static int r2g_board_unarm_dma(struct rfm_node *node, void *addr)
{
	struct r2g_node *r = node->priv;
	int err = rfm__r2g_unarm_dma(r->fd, addr);

	return err ? rfm__r2g_errno(err, "CLEAR_DMA_MMAP_OFFSET", where(node)) : 0;
}

static int r2g_board_dma(struct rfm_node *node, bool to_window, uint32_t offset, void *buf,
			 uint32_t len)
{
	struct r2g_node *r = node->priv;
	int err = rfm__r2g_transfer(r->fd, to_window, offset, buf, len);

	return err ? rfm__r2g_errno(err, to_window ? "WRITE" : "READ", where(node)) : 0;
}

const struct rfm_backend_board_ops rfm__r2g_board_ops = {
	.descriptor = r2g_board_descriptor,
	.get_config = r2g_board_get_config,
	.get_flag = r2g_board_get_flag,
	.set_flag = r2g_board_set_flag,
	.get_value = r2g_board_get_value,
	.set_value = r2g_board_set_value,
	.ring_test = r2g_board_ring_test,
	.clear_own_data = r2g_board_clear_own_data,
	.reg = r2g_board_reg,
	.map_special = r2g_board_map_special,
	.unarm_dma = r2g_board_unarm_dma,
	.dma = r2g_board_dma,
};
