    // Landed stores: per write burst awaiting B (at most «s.landed»){% if s.keyed %}, the σ key of its last store{% endif %};
    // a B retires the oldest. Per entry of the load cache, whether its last store has not
    // landed (`in_flight`) and the burst that holds it (`store_burst`): the B of that burst
    // clears the bit, so that a fetch asks one bit whether it reads every store to its entry.
{% if s.keyed %}    reg [«s.kw»:0] bk_key [0:«s.landed - 1»];
    reg [«s.kw»:0] acked_key;
    reg acked_any;
{% endif %}    reg [«s.bkw - 1»:0] bk_head, bk_tail;
    // Where every load's cell lies in the first lines, the other entries' bits go unread.
    // verilator lint_off UNUSEDSIGNAL
    reg [«s.entries - 1»:0] in_flight;
    // verilator lint_on UNUSEDSIGNAL
    reg [«s.bkw - 1»:0] store_burst [0:«s.entries - 1»];
