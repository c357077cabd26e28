// SPDX-License-Identifier: GPL-2.0
/*
 * Librfm's driver for reflective-memory cards: VMIC/GE/Abaco
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

/*
 * Only the 5565 family is bound (and autoloads the module) by id. QEMU's
 * ivshmem id 1af4:1110 is generic: any VM may have such a device for
 * another purpose, so it is bound only on request
 *   echo 1af4 1110 > /sys/bus/pci/drivers/rfm/new_id
 * (or driver_override), and even then only when its memory carries the
 * lab server's signature, checked before anything is written.
 */
static const struct pci_device_id rfm_pci_ids[] = {
	{ PCI_DEVICE(RFM5565_VENDOR, RFM5565_DEVICE) },
	{ }
};
MODULE_DEVICE_TABLE(pci, rfm_pci_ids);

static bool is_5565(const struct pci_dev *pdev)
{
	return pdev->vendor == RFM5565_VENDOR && pdev->device == RFM5565_DEVICE;
}

static bool is_ivshmem(const struct pci_dev *pdev)
{
	return pdev->vendor == IVSHMEM_VENDOR && pdev->device == IVSHMEM_DEVICE;
}

static int rfm_pci_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	int ret = -ENODEV;

	/* By the device itself, not the id entry: new_id entries carry no variant. */
	if (is_5565(pdev))
		ret = rfm_5565_probe(pdev);
	else if (is_ivshmem(pdev))
		ret = rfm_ivs_probe(pdev);
	if (!ret)
		rfm_procfs_add(pdev);
	return ret;
}

static void rfm_pci_remove(struct pci_dev *pdev)
{
	rfm_procfs_remove(pdev);
	if (is_5565(pdev))
		rfm_5565_remove(pdev);
	else
		rfm_ivs_remove(pdev);
}

static void rfm_pci_shutdown(struct pci_dev *pdev)
{
	if (!pci_get_drvdata(pdev))
		return;
	if (is_5565(pdev))
		rfm_5565_shutdown(pdev);
	else
		rfm_ivs_shutdown(pdev);
}

/* Virtual cards keep their state (the memory is the host's) across sleep. */
static int rfm_pm_suspend(struct device *dev)
{
	return is_5565(to_pci_dev(dev)) ? rfm_5565_suspend(dev) : 0;
}

static int rfm_pm_resume(struct device *dev)
{
	return is_5565(to_pci_dev(dev)) ? rfm_5565_resume(dev) : 0;
}

static DEFINE_SIMPLE_DEV_PM_OPS(rfm_pm_ops, rfm_pm_suspend, rfm_pm_resume);

/*
 * A PCI channel error: the card is not trusted to come back in place.
 * Users keep their files and see ENODEV once the core removes the device
 * (the removal path survives open files, mappings and blocked readers).
 */
static pci_ers_result_t rfm_error_detected(struct pci_dev *pdev, pci_channel_state_t state)
{
	dev_warn(&pdev->dev, "PCI channel error (state %d): giving the card up\n",
		 (__force int)state);
	if (pci_get_drvdata(pdev) && is_5565(pdev))
		rfm_5565_shutdown(pdev);
	return PCI_ERS_RESULT_DISCONNECT;
}

static const struct pci_error_handlers rfm_err_handlers = {
	.error_detected = rfm_error_detected,
};

static struct pci_driver rfm_pci_driver = {
	.name = RFM_DRIVER_NAME,
	.id_table = rfm_pci_ids,
	.probe = rfm_pci_probe,
	.remove = rfm_pci_remove,
	.shutdown = rfm_pci_shutdown,
	.err_handler = &rfm_err_handlers,
	.driver.pm = pm_sleep_ptr(&rfm_pm_ops),
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
