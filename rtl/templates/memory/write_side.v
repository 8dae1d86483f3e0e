    // Write side: the open burst (σ-consecutive stores to the same or the next line) with its last
    // beat held (stores to its line merge into it; wlast is known when the burst closes), the AW
    // offered, the W beats, the count awaiting B.
    reg wb_v;
    reg [63:0] wb_addr, wb_last, wb_end;  // first line, held line, the line after it
    reg [«w.bw - 1»:0] wb_beats;
    reg wb_full;  // wb_beats == BURST, a register
    reg [«w.hw - 1»:0] wb_idle;  // cycles since the open burst last grew
    reg [«data - 1»:0] wh_data;
    reg [«data / 8 - 1»:0] wh_strb;
    reg aw_v;
    reg [63:0] aw_addr;
    reg [7:0] aw_len;
    reg [«data + data / 8»:0] wf [0:«wbuf - 1»];  // {wlast, wstrb, wdata}
    reg [«w.wc - 2»:0] wf_head, wf_tail;
    reg [«w.wc - 1»:0] wf_count;
    reg [15:0] w_out;  // write bursts opened and not yet acknowledged
{% if fine %}    reg w_room;  // w_out != «landed», as a register
{% endif %}    reg [15:0] w_credit;  // AWs accepted whose W beats have not all gone: W never runs ahead of AW
    wire b_beat = m_bvalid && m_bready;
    assign m_awvalid = aw_v;
    wire aw_taken = m_awvalid && m_awready;
    wire aw_free = !aw_v || aw_taken;
    reg wf_room;  // wf_count != its size, as a register
    // wf_count != 0 and w_credit != 0, as registers: the lanes' writer decides on m_wvalid.
    reg wf_any, w_any;
{% if staged %}    // The store stage compared sb's line with the last store's as it entered sb (`sb_is_last`,
    // `sb_is_end`): that store is the one the open burst holds last.
    wire aw_same = wb_v && sb_is_last{% if ordered %} && st_same_band{% endif %};  // merges into the held beat
    wire aw_ext = wb_v && !wb_full && sb_is_end{% if ordered %} && st_same_band{% endif %};  // a beat more, within 4 KiB
{% else %}    wire aw_same = wb_v && st_line_addr == wb_last;  // merges into the held beat
    wire aw_ext = wb_v && !wb_full && st_line_addr == wb_end && st_line_addr[11:0] != 12'd0;  // a beat more, within 4 KiB
{% endif %}    assign st_go = st_want && pop_ok{% if ordered %} && !war{% endif %} && wf_room && (aw_same || aw_ext || !wb_v || aw_free){% if fine %} && (aw_same || aw_ext || w_room){% endif %};
{% if ordered %}    // A load of another band wants to go, as of the last cycle: the open burst closes for it a
    // cycle late (whether it is another band's comes after the pick).
    reg ld_other_band;
    always @(posedge clk) ld_other_band <= ld_want && !ld_same_band;
{% endif %}    wire wb_close = wb_v && !st_go && aw_free && wf_room && (wb_full || wb_idle == HOLD || {% if ordered %}ld_other_band || {% endif %}all_done);
    wire wb_ship = (st_go && !aw_same && !aw_ext && wb_v) || wb_close;  // the open burst goes to AW
    wire wf_push = (st_go && !aw_same && wb_v) || wb_close;  // the held beat goes to W
    wire wf_pop = m_wvalid && m_wready;
    wire w_opened = st_go && !aw_same && !aw_ext;  // a burst opens, to be acknowledged
    // The counts one up and one down, chosen by the store's decision and the W beat or B last,
    // rather than entering an adder; the W FIFO is full next if it is one short and a beat
    // goes in and none out, or full and none goes out (none goes in while it is full).
    wire [«w.wc - 1»:0] wf_up = wf_count + «w.wc»'d1, wf_down = wf_count - «w.wc»'d1;
    wire [15:0] w_out_up = w_out + 16'd1, w_out_down = w_out - 16'd1;
    // The W credit likewise, chosen by the AW taken and the W burst's last beat (the port's
    // wready, late in the cycle, decides the latter).
    wire w_last_beat = wf_pop && m_wlast;
    wire [15:0] w_credit_up = w_credit + 16'd1, w_credit_down = w_credit - 16'd1;
    wire wf_short = wf_count == «w.wc»'d«wbuf - 1»;
{%- if let Some(slots) = slots %}
    // The store's slot of the beat (its address is aligned to it), one-hot: the value is copied
    // to every slot and masked, where a shift by its byte address would put a barrel shifter
    // after the value's pop.
    wire [«slots.count - 1»:0] st_at = «slots.count»'d1 << st_addr[«w.size - 1»:«slots.low»];
    wire [«data - 1»:0] st_keep = «slots.keep»;
    wire [«data - 1»:0] st_data = {«slots.count»{pop_value}} & st_keep;
    wire [«data / 8 - 1»:0] st_strb = «slots.strb»;
{%- else if ew < data %}
    wire [«data - 1»:0] st_data = {«data - ew»'d0, pop_value} << {st_addr[«w.size - 1»:0], 3'b000};
    wire [«data - 1»:0] st_keep = {«data - ew»'d0, {«ew»{1'b1}}} << {st_addr[«w.size - 1»:0], 3'b000};
    wire [«data / 8 - 1»:0] st_strb = {«data / 8 - eb»'d0, {«eb»{1'b1}}} << st_addr[«w.size - 1»:0];
{%- else %}
    // A store fills a whole beat (vector lanes), at a line's first byte.
    wire [«data - 1»:0] st_data = pop_value;
    wire [«data - 1»:0] st_keep = {«data»{1'b1}};
    wire [«data / 8 - 1»:0] st_strb = {«data / 8»{1'b1}};
{%- endif %}
    assign m_awaddr = aw_addr;
    assign m_awlen = aw_len;
    assign m_awsize = 3'd«w.size»;
    assign m_awburst = 2'b01;
    assign m_wvalid = wf_any && w_any;
    assign {m_wlast, m_wstrb, m_wdata} = wf[wf_head];
    assign m_bready = 1'b1;
    always @(posedge clk) if (wf_push) wf[wf_tail] <= {!(st_go && aw_ext), wh_strb, wh_data};
    always @(posedge clk) begin
        if (rst || start) begin
            wb_v <= 1'b0;
            aw_v <= 1'b0;
            wf_head <= «w.wc - 1»'d0;
            wf_tail <= «w.wc - 1»'d0;
            wf_count <= «w.wc»'d0;
            wf_room <= 1'b1;
            wf_any <= 1'b0;
            w_any <= 1'b0;
            w_out <= 16'd0;{% if fine %}
            w_room <= 1'b1;{% endif %}
            w_credit <= 16'd0;
        end else begin
            if (aw_taken) aw_v <= 1'b0;
            if (wb_ship) begin
                aw_v <= 1'b1;
                aw_addr <= wb_addr;
                aw_len <= «len»;
            end
            if (st_go && aw_ext) begin
                wb_beats <= wb_beats + «w.bw»'d1;
                wb_full <= wb_beats == BURST - «w.bw»'d1;
                wb_last <= st_line_addr;
                wb_end <= st_line_addr + 64'd«w.lb»;
            end else if ((st_go && !aw_same) || wb_close) begin
                wb_v <= st_go;
                wb_addr <= st_line_addr;
                wb_last <= st_line_addr;
                wb_end <= st_line_addr + 64'd«w.lb»;
                wb_beats <= «w.bw»'d1;
                wb_full <= 1'b0;
            end
            if (st_go && aw_same) begin
                wh_data <= (wh_data & ~st_keep) | st_data;
                wh_strb <= wh_strb | st_strb;
            end else if (st_go) begin
                wh_data <= st_data;
                wh_strb <= st_strb;
            end
            if (st_go) wb_idle <= «w.hw»'d0;
            else if (wb_idle != HOLD) wb_idle <= wb_idle + «w.hw»'d1;
            if (wf_push) wf_tail <= wf_tail + «w.wc - 1»'d1;
            if (wf_pop) wf_head <= wf_head + «w.wc - 1»'d1;
            // Gates choose between the sums (a multiplexer would go before one adder, after the push).
            if (wf_push != wf_pop) wf_count <= (wf_up & {«w.wc»{wf_push}}) | (wf_down & {«w.wc»{wf_pop}});
            wf_room <= !(wf_pop ? 1'b0 : wf_push ? wf_short : !wf_room);
            wf_any <= wf_push || (wf_pop ? wf_count != «w.wc»'d1 : wf_any);
            if (aw_taken != w_last_beat) w_credit <= (w_credit_up & {16{aw_taken}}) | (w_credit_down & {16{w_last_beat}});
            w_any <= aw_taken || (w_last_beat ? w_credit != 16'd1 : w_any);
            if (w_opened && !b_beat) w_out <= w_out_up;
            else if (!w_opened && b_beat) w_out <= w_out_down;{% if fine %}
            if (w_opened && !b_beat) w_room <= w_out != 16'd«landed - 1»;
            else if (!w_opened && b_beat) w_room <= 1'b1;{% endif %}
        end
    end
