/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * prstatus.c - the hibernating CPU's registers as an NT_PRSTATUS note, the
 * one /proc/vmcore carries per CPU (kernel/crash_core.c crash_save_cpu():
 * struct elf_prstatus, pr_reg the pt_regs), so crash's bt can start
 * somewhere ("invalid NT_PRSTATUS note" without it).
 *
 * x86_64: swsusp_arch_suspend (arch/x86/power/hibernate_asm_64.S, the
 * same in 6.1 and 6.12) stores rsp, rbp, rsi, rdi, rbx, rcx, rdx, r8-r15
 * and rflags into saved_context.regs before it calls swsusp_save(), which
 * copies memory: the image holds them. struct saved_context
 * (arch/x86/include/asm/suspend_64.h, packed) starts with struct pt_regs
 * regs (r15 .. ss, 21 words: user_regs_struct's first 21 in its order),
 * then u16 ds, es, fs, gs and kernelmode_gs_base, usermode_gs_base,
 * fs_base. Its address comes from kallsyms (lib/kallsyms.c): VMCOREINFO
 * has no SYMBOL(saved_context).
 *
 * rip is not stored. The note holds the state resume continues from:
 * restore_registers (same file) loads rsp and the rest from saved_context,
 * zeroes rax and returns, so its ret pops [saved rsp] (nothing before the
 * store of rsp moved the stack: that word is swsusp_arch_suspend's return
 * address) and the resumed kernel goes on in the caller, at that address,
 * with rsp 8 higher and the callee-saved registers as stored. So rip is
 * the word at the saved rsp, rsp that plus 8, rax 0. An unwinder starts in
 * hibernation_snapshot() then, where the kernel's unwind data (ORC) is:
 * swsusp_arch_suspend is hand-written asm objtool skips, and a note whose
 * rip was its entry left drgn with one unnamed frame. cs and
 * ss are not stored either and are the kernel's own, __KERNEL_CS 0x10 and
 * __KERNEL_DS 0x18 (arch/x86/include/asm/segment.h, 64-bit). orig_rax is
 * copied as the image has it.
 *
 * pr_pid is the CPU's number + 1, as QEMU's dump-guest-memory writes it for
 * memory taken from a running kernel, and not crash_save_cpu()'s pid of
 * current: drgn finds the note of a CPU that way when VMCOREINFO has no
 * CRASHTIME (stack_trace.c; with CRASHTIME it reads the kernel's own
 * crash_notes instead, zeros in a kernel that never crashed). The CPU is
 * the one hibernation left online (freeze_secondary_cpus(): CPU 0 unless
 * it was offline), the lowest bit of __cpu_online_mask; CPU 0 where
 * kallsyms lacks that symbol. The same holds on arm64 (no
 * CONFIG_PM_SLEEP_SMP_NONZERO_CPU there).
 *
 * arm64: swsusp_arch_suspend (arch/arm64/kernel/hibernate.c) keeps a
 * struct sleep_stack_data state on its stack and calls
 * __cpu_suspend_enter(&state) (sleep.S), which stores x29, lr and x19-x28
 * into state.callee_saved_regs[], its sp into state.system_regs.sp, and
 * &state into sleep_save_stash[mpidr_hash of the CPU's MPIDR]; then
 * swsusp_save() copies memory: the image holds them, and its header the
 * CPU's MPIDR (sleep_cpu_mpidr). _cpu_resume loads them back and returns
 * to the saved lr with x0 = 0, so the note holds that state: pc = lr = the
 * saved lr (in swsusp_arch_suspend, right after its bl), sp, x29 and
 * x19-x28 as saved, x0 0, the caller-saved rest unknown and 0. pstate is
 * not saved anywhere; it is EL1h with D, A, I and F masked (0x3c5), as
 * local_daif_save() left it before the call and the resumed code runs
 * until local_daif_restore(). The offset of callee_saved_regs follows
 * NR_CTX_REGS (asm/suspend.h: 13 since 5.8 added x18, one more by 6.12;
 * in Debian's images, read with their System.map, 6.1's sp is at 104 and
 * lr at 120, 6.12's at 112 and 136), which the image does not say: each layout is tried and the one taken whose lr follows a
 * bl __cpu_suspend_enter inside swsusp_arch_suspend and whose sp is a
 * 16-byte aligned kernel address just below &state; none or both: no
 * note. sleep_save_stash and mpidr_hash are data, in kallsyms only with
 * CONFIG_KALLSYMS_ALL (Debian's 6.1 has it off: no note there).
 */
#include "kmemP.h"

#include <stdio.h>
#include <string.h>

#define X86_64_PT_REGS      21u     /* words of struct pt_regs */
#define X86_64_REG_RAX      10u
#define X86_64_REG_IP       16u
#define X86_64_REG_SP       19u
#define X86_64_REG_CS       17u
#define X86_64_REG_SS       20u
#define X86_64_KERNEL_CS    0x10u
#define X86_64_KERNEL_DS    0x18u
/* struct elf_prstatus on x86_64 (include/linux/elfcore.h): pr_reg at 112,
 * 27 words (user_regs_struct), pr_fpvalid, padding to 336 */
#define X86_64_PR_PID       32u     /* after si_signo/code/errno, cursig, sigpend, sighold */
#define X86_64_PR_REG       112u
#define X86_64_PR_FS_BASE   (X86_64_PR_REG + 21 * 8)

static void put_le(unsigned char *p, uint64_t v, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get_le(const unsigned char *p, unsigned int n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

static unsigned int online_cpu(struct hib_kmem *km)
{
	unsigned char w[8];
	uint64_t va, m;
	unsigned int cpu;

	if (hib_kmem_symbol(km, "__cpu_online_mask", &va) != HIB_OK ||
	    hib_kmem_read_virt(km, va, w, sizeof(w)) != HIB_OK)
		return 0;
	m = get_le(w, 8);
	for (cpu = 0; cpu < 64 && !(m >> cpu & 1); cpu++)
		;
	return cpu < 64 ? cpu : 0;
}

static int x86_64(struct hib_kmem *km, unsigned char *d)
{
	/* regs, ds..gs, kernelmode_gs_base, usermode_gs_base, fs_base */
	unsigned char sc[X86_64_PT_REGS * 8 + 8 + 24];
	unsigned char ret[8];
	uint64_t sc_va, sp;
	unsigned int i;
	int rc;

	rc = hib_kmem_symbol(km, "saved_context", &sc_va);
	if (rc == HIB_OK)
		rc = hib_kmem_read_virt(km, sc_va, sc, sizeof(sc));
	if (rc)
		return rc;
	sp = get_le(sc + 8 * X86_64_REG_SP, 8);
	rc = hib_kmem_read_virt(km, sp, ret, sizeof(ret));
	if (rc) {
		char why[256];

		snprintf(why, sizeof(why), "%.255s", km->img->err);
		return hib_seterr(km->img, rc,
				  "saved_context's rsp 0x%llx: no return address to resume at: %.200s",
				  (unsigned long long)sp, why);
	}
	for (i = 0; i < X86_64_PT_REGS; i++)
		memcpy(d + X86_64_PR_REG + 8 * i, sc + 8 * i, 8);
	put_le(d + X86_64_PR_PID, online_cpu(km) + 1, 4);
	put_le(d + X86_64_PR_REG + 8 * X86_64_REG_RAX, 0, 8);
	memcpy(d + X86_64_PR_REG + 8 * X86_64_REG_IP, ret, 8);
	put_le(d + X86_64_PR_REG + 8 * X86_64_REG_SP, sp + 8, 8);
	put_le(d + X86_64_PR_REG + 8 * X86_64_REG_CS, X86_64_KERNEL_CS, 8);
	put_le(d + X86_64_PR_REG + 8 * X86_64_REG_SS, X86_64_KERNEL_DS, 8);
	/* user_regs_struct: fs_base, gs_base, ds, es, fs, gs */
	memcpy(d + X86_64_PR_FS_BASE, sc + 168 + 8 + 16, 8);
	memcpy(d + X86_64_PR_FS_BASE + 8, sc + 168 + 8, 8);
	for (i = 0; i < 4; i++)
		put_le(d + X86_64_PR_FS_BASE + 16 + 8 * i, get_le(sc + 168 + 2 * i, 2), 8);
	return HIB_OK;
}

/* struct elf_prstatus on arm64: the same 112 bytes before pr_reg, struct
 * user_pt_regs (regs[31], sp, pc, pstate: 34 words), pr_fpvalid, padding
 * to 392 */
#define ARM64_PR_PID        32u
#define ARM64_PR_REG        112u
#define ARM64_PR_SP         (ARM64_PR_REG + 31 * 8)
#define ARM64_PR_PC         (ARM64_PR_SP + 8)
#define ARM64_PR_PSTATE     (ARM64_PR_PC + 8)
#define ARM64_PSTATE_RESUME 0x3c5u  /* PSR_MODE_EL1h | PSR_{D,A,I,F}_BIT */
#define ARM64_CALLEE_REGS   12u     /* NR_CALLEE_SAVED_REGS */
#define ARM64_STATE_MAX     (16u * 8 + ARM64_CALLEE_REGS * 8)
#define ARM64_FRAME_MAX     4096u   /* swsusp_arch_suspend's frame, generously */
#define ARM64_FN_MAX        4096u   /* and its code */

struct arm64_layout {
	unsigned int nr_ctx_regs;   /* NR_CTX_REGS */
	unsigned int sp, callee;    /* offsets in struct sleep_stack_data */
};

/* cpu_suspend_ctx is ctx_regs[NR_CTX_REGS] and sp, __aligned(16) */
static const struct arm64_layout arm64_layouts[] = {
	{ 13, 13 * 8, 112 },        /* 5.8 .. 6.1 at least */
	{ 14, 14 * 8, 128 },        /* 6.12 */
};

/* compute_mpidr_hash (arch/arm64/include/asm/assembler.h in sleep.S) with
 * struct mpidr_hash { u64 mask; u32 shift_aff[4]; u32 bits; } */
static int arm64_stash_slot(struct hib_kmem *km, uint64_t mpidr, uint64_t *slot)
{
	unsigned char h[8 + 4 * 4 + 4];
	uint64_t va, m, s[4], hash;
	unsigned int i, bits;
	int rc;

	rc = hib_kmem_symbol(km, "mpidr_hash", &va);
	if (rc == HIB_OK)
		rc = hib_kmem_read_virt(km, va, h, sizeof(h));
	if (rc)
		return rc;
	m = mpidr & get_le(h, 8);
	for (i = 0; i < 4; i++)
		s[i] = get_le(h + 8 + 4 * i, 4);
	bits = (unsigned int)get_le(h + 24, 4);
	if (s[0] > 63 || s[1] > 63 || s[2] > 63 || s[3] > 63 || bits > 32)
		return hib_seterr(km->img, HIB_ERR_DAMAGED,
				  "mpidr_hash holds no shifts (bits %u): not the kernel's", bits);
	hash = (m & 0xff) >> s[0] | (m & 0xff00) >> s[1] | (m & 0xff0000) >> s[2] |
	       (m & 0xff00000000ull) >> s[3];
	if (hash >> bits)
		return hib_seterr(km->img, HIB_ERR_DAMAGED,
				  "MPIDR 0x%llx hashes to %llu, past mpidr_hash's %u bits",
				  (unsigned long long)mpidr, (unsigned long long)hash, bits);
	*slot = hash;
	return HIB_OK;
}

/* The word at lr - 4 is a bl whose target is __cpu_suspend_enter, and lr
 * is past swsusp_arch_suspend's start: the call that stored the state. */
static bool arm64_resume_lr(struct hib_kmem *km, uint64_t lr, uint64_t fn, uint64_t callee)
{
	unsigned char w[4];
	uint32_t insn;
	int64_t off;

	if (lr <= fn || lr - fn > ARM64_FN_MAX || lr & 3 ||
	    hib_kmem_read_virt(km, lr - 4, w, 4) != HIB_OK)
		return false;
	insn = (uint32_t)get_le(w, 4);
	if ((insn & 0xfc000000u) != 0x94000000u)   /* BL imm26 */
		return false;
	off = (int64_t)((uint64_t)(insn & 0x03ffffffu) << 38) >> 36;
	return lr - 4 + (uint64_t)off == callee;
}

static int arm64(struct hib_kmem *km, unsigned char *d)
{
	const struct hib_info *in = &km->img->info;
	unsigned char st[ARM64_STATE_MAX], w[8];
	uint64_t stash, slot = 0, state = 0, fn, callee, sp = 0, fp = 0, lr = 0;
	const struct arm64_layout *fit = NULL;
	unsigned int i, nfit = 0;
	int rc;

	if (!in->have_sleep_cpu_mpidr)
		return hib_seterr(km->img, HIB_ERR_UNSUPPORTED,
				  "the image's header names no hibernating CPU (sleep_cpu_mpidr)");
	rc = hib_kmem_symbol(km, "sleep_save_stash", &stash);
	if (rc == HIB_OK)
		rc = arm64_stash_slot(km, in->sleep_cpu_mpidr, &slot);
	if (rc == HIB_OK)
		rc = hib_kmem_read_virt(km, stash, w, 8);
	if (rc == HIB_OK)
		rc = hib_kmem_read_virt(km, get_le(w, 8) + 8 * slot, w, 8);
	if (rc == HIB_OK) {
		state = get_le(w, 8);
		rc = hib_kmem_read_virt(km, state, st, sizeof(st));
	}
	if (rc == HIB_OK)
		rc = hib_kmem_symbol(km, "swsusp_arch_suspend", &fn);
	if (rc == HIB_OK)
		rc = hib_kmem_symbol(km, "__cpu_suspend_enter", &callee);
	if (rc)
		return rc;
	for (i = 0; i < sizeof(arm64_layouts) / sizeof(arm64_layouts[0]); i++) {
		const struct arm64_layout *l = &arm64_layouts[i];
		uint64_t s = get_le(st + l->sp, 8);
		uint64_t r = get_le(st + l->callee + 8, 8);

		/* the top 12 bits set: a kernel address with 48- or 52-bit VAs */
		if (s >> 52 != 0xfff || s & 15 || s > state || state - s > ARM64_FRAME_MAX ||
		    !arm64_resume_lr(km, r, fn, callee))
			continue;
		fit = l;
		nfit++;
		sp = s;
		lr = r;
		fp = get_le(st + l->callee, 8);
	}
	if (nfit != 1)
		return hib_seterr(km->img, HIB_ERR_UNSUPPORTED,
				  nfit ? "sleep_save_stash's state at 0x%llx fits both struct sleep_stack_data layouts (NR_CTX_REGS 13 and 14): which registers are which is not known"
				       : "sleep_save_stash's state at 0x%llx fits no struct sleep_stack_data layout (NR_CTX_REGS 13 or 14): no saved sp just below it with an lr after a bl __cpu_suspend_enter in swsusp_arch_suspend",
				  (unsigned long long)state);
	put_le(d + ARM64_PR_PID, online_cpu(km) + 1, 4);
	put_le(d + ARM64_PR_REG + 8 * 29, fp, 8);
	put_le(d + ARM64_PR_REG + 8 * 30, lr, 8);
	for (i = 0; i < 10; i++)        /* x19 .. x28 */
		memcpy(d + ARM64_PR_REG + 8 * (19 + i), st + fit->callee + 16 + 8 * i, 8);
	put_le(d + ARM64_PR_SP, sp, 8);
	put_le(d + ARM64_PR_PC, lr, 8);
	put_le(d + ARM64_PR_PSTATE, ARM64_PSTATE_RESUME, 8);
	return HIB_OK;
}

bool hib_prstatus_export(struct hib_image *img, struct hib_kmem *km, const char *no_km,
			 unsigned int e_machine, unsigned char *desc, size_t *len, char *why,
			 size_t why_len)
{
	char keep[sizeof(img->err)];

	memcpy(keep, img->err, sizeof(keep));
	*len = 0;
	if (!km)
		snprintf(why, why_len, "%.255s", no_km);
	else if (hib_prstatus(km, e_machine, desc, len) != HIB_OK)
		snprintf(why, why_len, "%.255s", img->err);
	memcpy(img->err, keep, sizeof(keep));
	return *len != 0;
}

int hib_prstatus(struct hib_kmem *km, unsigned int e_machine, unsigned char *desc,
		 size_t *len)
{
	int rc;

	memset(desc, 0, HIB_PRSTATUS_MAX);
	*len = 0;
	if (!hib_prstatus_size(e_machine))
		return hib_seterr(km->img, HIB_ERR_UNSUPPORTED,
				  "no saved registers for this architecture: only x86_64's and arm64's swsusp_arch_suspend leave them where they can be found");
	if (hib_kmem_word(km, (const unsigned char *)"\1\0\0\0\0\0\0\0") != 1 ||
	    km->img->lay.word != 8)
		return hib_seterr(km->img, HIB_ERR_UNSUPPORTED,
				  "%s registers, but not a little-endian 64-bit image",
				  e_machine == HIB_EM_X86_64 ? "x86_64" : "arm64");
	rc = e_machine == HIB_EM_X86_64 ? x86_64(km, desc) : arm64(km, desc);
	if (rc)
		return rc;
	*len = hib_prstatus_size(e_machine);
	return HIB_OK;
}
