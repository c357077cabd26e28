# SPDX-License-Identifier: LGPL-2.1-or-later
# Smoke test of the Tcl binding: every family of typemaps in bindings/rfm.i
# (handles out, values out, byte buffers both ways, info as a dict, errors as
# Tcl errors with errorCode {RFM code sentence}).
#   tclsh smoke.tcl path/to/rfm.so

load [lindex $argv 0] Rfm

set passed 0
set failed 0

proc check {name got want} {
	global passed failed
	if {$got eq $want} {
		incr passed
	} else {
		incr failed
		puts "FAIL: $name: got {$got}, want {$want}"
	}
}

# Runs script, which must fail with the given librfm code; returns the message.
proc check_error {name code script} {
	global passed failed
	if {![catch {uplevel 1 $script} message options]} {
		incr failed
		puts "FAIL: $name: no error"
		return ""
	}
	set errorcode [dict get $options -errorcode]
	if {[lindex $errorcode 0] eq "RFM" && [lindex $errorcode 1] == $code} {
		incr passed
	} else {
		incr failed
		puts "FAIL: $name: error {$message} with errorCode {$errorcode}, want RFM $code"
	}
	return $message
}

set name "tcl-smoke-[pid]"
set uri "shm:$name?size=64K"

# Whatever happens, the network goes: an aborted run must not leave it behind.
try {
	set node [rfm_open "$uri&node=7"]
	check "node id" [rfm_node_id $node] 7
	check "size" [rfm_node_size $node] 65536
	check "backend" [rfm_node_backend $node] shm
	check "uri" [rfm_node_uri $node] "shm:$name?node=7&size=65536"
	check "version" [rfm_version_string] $RFM_VERSION_STRING

	set peer [rfm_open "shm:$name"]
	check "peer id" [rfm_node_id $peer] 0

	rfm_mem_poke32 $node 8 0xdeadbeef
	check "peek32 from the peer" [rfm_mem_peek32 $peer 8] [expr {0xdeadbeef}]
	rfm_mem_poke64 $node 16 0x0123456789abcdef
	check "peek64" [format %llx [rfm_mem_peek64 $peer 16]] 123456789abcdef
	rfm_mem_poke8 $node 3 0xff
	check "peek8" [rfm_mem_peek8 $peer 3] 255

	# Bytes, NUL included, go through as byte arrays.
	rfm_mem_write $node 100 [binary format a*ca* "ab" 0 "cd"]
	binary scan [rfm_mem_read $peer 100 5] H* hex
	check "write/read bytes" $hex 6162006364

	set mapped [rfm_mem_map $node]
	check "map size" [lindex $mapped 1] 65536

	set info [rfm_node_get_info $peer]
	check "info uri" [dict get $info uri] [rfm_node_uri $peer]
	check "info node id" [dict get $info node_id] 0
	check "info size" [dict get $info size] 65536
	check "info nodes attached" [dict get $info nodes_attached] 2

	set message [check_error "misaligned peek" $RFM_EALIGN {rfm_mem_peek32 $node 2}]
	check "message from rfm_last_error" $message "rfm_mem_peek32: offset 0x2 is not a multiple of 4"
	check_error "peek outside the window" $RFM_ERANGE {rfm_mem_peek32 $node 65536}
	check_error "node id in use" $RFM_EINUSE {rfm_open "shm:$name?node=7"}
	check_error "unknown scheme" $RFM_ESCHEME {rfm_open "nosuch:thing"}
	check_error "destroy while attached" $RFM_EBUSY {rfm_network_destroy "shm:$name" 0}

	rfm_close $peer
	rfm_close $node
	rfm_network_destroy "shm:$name" 0
	check_error "destroy twice" $RFM_ENOENT {rfm_network_destroy "shm:$name" 0}
} finally {
	catch {rfm_network_destroy "shm:$name" $RFM_DESTROY_FORCE}
}

puts "tcl smoke: $passed passed, $failed failed"
exit [expr {$failed > 0}]
