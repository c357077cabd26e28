// SPDX-License-Identifier: GPL-2.0
/*
 * rfm-main.c - librfm's driver for reflective-memory cards: VMIC/GE/Abaco
 * 5565-family cards and QEMU ivshmem-doorbell devices used as virtual
 * cards. One PCI driver binds both; each card becomes /dev/rfmN.
 */
#include <linux/module.h>
#include <linux/pci.h>

#include "rfm-core.h"
#include "rfm-procfs.h"
#include "rfm5565-hw.h"

#define IVSHMEM_VENDOR 0x1af4
#define IVSHMEM_DEVICE 0x1110

enum rfm_variant { RFM_VARIANT_5565, RFM_VARIANT_IVSHMEM };

static const struct pci_device_id rfm_pci_ids[] = {
	{ PCI_DEVICE(RFM5565_VENDOR, RFM5565_DEVICE), .driver_data = RFM_VARIANT_5565 },
	{ PCI_DEVICE(IVSHMEM_VENDOR, IVSHMEM_DEVICE), .driver_data = RFM_VARIANT_IVSHMEM },
	{ }
};
MODULE_DEVICE_TABLE(pci, rfm_pci_ids);

static int rfm_pci_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	int ret = id->driver_data == RFM_VARIANT_5565 ? rfm_5565_probe(pdev) : rfm_ivs_probe(pdev);

	if (!ret)
		rfm_procfs_add(pdev);
	return ret;
}

static void rfm_pci_remove(struct pci_dev *pdev)
{
	rfm_procfs_remove(pdev);
	if (pdev->vendor == RFM5565_VENDOR)
		rfm_5565_remove(pdev);
	else
		rfm_ivs_remove(pdev);
}

static struct pci_driver rfm_pci_driver = {
	.name = RFM_DRIVER_NAME,
	.id_table = rfm_pci_ids,
	.probe = rfm_pci_probe,
	.remove = rfm_pci_remove,
};

static int __init rfm_init(void)
{
	int ret;

	ret = rfm_chrdev_init();
	if (ret)
		return ret;
	rfm_procfs_init();
	ret = pci_register_driver(&rfm_pci_driver);
	if (ret) {
		rfm_procfs_exit();
		rfm_chrdev_exit();
	}
	return ret;
}

static void __exit rfm_exit(void)
{
	pci_unregister_driver(&rfm_pci_driver);
	rfm_procfs_exit();
	rfm_chrdev_exit();
}

module_init(rfm_init);
module_exit(rfm_exit);

MODULE_DESCRIPTION("Reflective-memory cards (5565 family, QEMU ivshmem) for librfm");
MODULE_LICENSE("GPL");
MODULE_VERSION(RFM_DRIVER_VERSION);
