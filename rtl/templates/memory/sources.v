    // Landed stores: per write burst awaiting B (at most «s.landed»), {% if s.keyed %}the σ key of its last store and the
    // stores issued up to it{% else %}the stores issued up to its last{% endif %};
    // a B retires the oldest.
{% if s.keyed %}    reg [«s.kw»:0] bk_key [0:«s.landed - 1»];
    reg [«s.kw»:0] acked_key;
    reg acked_any;
{% endif %}    reg [31:0] bk_count [0:«s.landed - 1»];
    reg [«s.bkw - 1»:0] bk_head, bk_tail;
    reg [31:0] st_count, acked_count;  // stores issued; of them, those landed
